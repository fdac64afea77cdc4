"""What of a client's run options may reach a graph: one rule for every protocol that starts a run.

A client may tune a run (``config``: ``tags``, ``recursion_limit``, ``run_name``, ``max_concurrency``, its own
``configurable`` keys; ``metadata``; ``context``), never steer what LangGraph or the service reads itself. LangGraph
keeps its machinery in ``configurable`` under ``__pregel_*`` (the resume map among them: a run given one answers an
interrupt without anyone deciding it), reads ``checkpoint_id``/``checkpoint_ns``/``checkpoint_map`` and
``thread_id`` from it, and writes ``langgraph_*`` into a run's metadata; the service names the thread, the run,
the graph and the assistant itself. ``screen_run_options`` refuses any of those keys (a 422 naming where it
stood) before anything starts; ``client_config`` builds a run's config from what the rule lets through, so a
record stored before the rule existed cannot carry them into a resumed run either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from agent.stores import STORE_SUBJECT_KEY, subject_label
from api.runs.errors import RunRequestInvalid

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from agent.graphs import RegisteredGraph
    from api.runs.log.records import GraphRun
    from api.runs.run import Run

__all__ = (
    "SERVICE_NAMES",
    "client_config",
    "graph_run_config",
    "reserved_key",
    "screen_run_options",
    "without_reserved",
)

SERVICE_NAMES = frozenset({"thread_id", "run_id", "graph_id", "assistant_id"})
"""What the service names in every run's ``configurable`` and ``metadata`` (the Agent Server's names)."""
_CHECKPOINT_KEYS = frozenset({"checkpoint_id", "checkpoint_ns", "checkpoint_map"})
_RESERVED_PREFIXES = ("__", "checkpoint_", "langgraph_")
_CONFIG_KEYS: dict[str, type] = {
    "configurable": dict,
    "metadata": dict,
    "tags": list,
    "recursion_limit": int,
    "run_name": str,
    "max_concurrency": int,
}
"""The keys of LangChain's ``RunnableConfig`` a client may set, with their types (``callbacks`` and ``run_id``
are the service's)."""


def reserved_key(key: str) -> bool:
    """Whether ``key`` of a ``configurable``, ``metadata`` or ``context`` is LangGraph's or the service's."""
    return key in SERVICE_NAMES or key in _CHECKPOINT_KEYS or key.startswith(_RESERVED_PREFIXES)


def screen_run_options(
    config: dict[str, Any] | None, metadata: dict[str, Any] | None, context: dict[str, Any] | None, *, field: str = ""
) -> None:
    """Refuse (``RunRequestInvalid``, 422) options that carry a key the rule keeps for LangGraph or the service;
    ``field``: where the options stand in the request body (``forwardedProps.``), for the message."""
    for key, value in (config or {}).items():
        expected = _CONFIG_KEYS.get(key)
        if expected is None:
            _refuse(f"{field}config.{key}", f"is not a config key a client may set (it may set {_config_keys()})")
        if value is not None and not _is_kind(value, expected):
            _refuse(f"{field}config.{key}", f"must be {_KIND[expected]}")
    for where, values in (
        ("config.configurable", (config or {}).get("configurable")),
        ("config.metadata", (config or {}).get("metadata")),
        ("metadata", metadata),
        ("context", context),
    ):
        for key in values or {}:
            if reserved_key(key):
                _refuse(f"{field}{where}.{key}", _why(key))


def client_config(config: dict[str, Any]) -> dict[str, Any]:
    """The part of a stored run's ``config`` the rule lets through (``configurable`` and ``metadata`` without
    reserved keys), to which the service then adds its own names."""
    allowed: dict[str, Any] = {}
    for key, value in config.items():
        if key not in _CONFIG_KEYS or value is None:
            continue
        allowed[key] = without_reserved(value) if isinstance(value, dict) else value
    return allowed


def graph_run_config(run: Run, registered: RegisteredGraph, options: GraphRun | None) -> RunnableConfig:
    """The run's config: what the client may set of it (``options``, None for a ``/chat`` turn), with the thread,
    the run and the graph named the way the Agent Server names them (``configurable`` and ``metadata``)."""
    config = client_config(options.config) if options is not None else {}
    names = {
        "thread_id": run.session_id,
        "run_id": run.run_id,
        "graph_id": registered.graph_id,
        "assistant_id": registered.assistant_id,
    }
    # whose items the graphs' long-term store reads and writes in this run (``agent.stores.graph_store``)
    store_subject = {STORE_SUBJECT_KEY: subject_label(run.record.owner)}
    config["configurable"] = {**config.get("configurable", {}), **names, **store_subject, **_auth_user(options)}
    metadata = without_reserved(options.metadata) if options is not None else {}
    config["metadata"] = {**config.get("metadata", {}), **metadata, **names}
    return config  # type: ignore[return-value]  # a RunnableConfig is this dict


def _auth_user(options: GraphRun | None) -> dict[str, Any]:
    """What the Agent Server names of langgraph.json's custom auth user in a run's ``configurable``."""
    user = options.auth_user if options is not None else None
    if user is None:
        return {}
    return {
        "langgraph_auth_user": user,
        "langgraph_auth_user_id": user.get("identity"),
        "langgraph_auth_permissions": list(user.get("permissions", [])),
    }


def without_reserved(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (a ``configurable``, ``metadata`` or ``context``) without the keys the rule reserves."""
    return {key: value for key, value in values.items() if not reserved_key(key)}


_KIND = {dict: "an object", list: "a list of strings", int: "an integer of at least 1", str: "a string"}


def _is_kind(value: object, expected: type) -> bool:
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1
    if isinstance(value, list):
        return expected is list and all(isinstance(tag, str) for tag in value)
    return isinstance(value, expected)


def _config_keys() -> str:
    return ", ".join(f"`{key}`" for key in _CONFIG_KEYS)


def _why(key: str) -> str:
    if key in SERVICE_NAMES:
        return "is named by the service itself (the thread, the run, the graph and the assistant are the request's)"
    if key in _CHECKPOINT_KEYS or key.startswith("checkpoint_"):
        return "is LangGraph's: a run starts from its thread's latest checkpoint (time travel is not served)"
    return "is reserved for LangGraph and the service (keys starting with `__`, `checkpoint_` or `langgraph_`)"


def _refuse(path: str, message: str) -> NoReturn:
    raise RunRequestInvalid(f"{path} {message}.", fields={path: message})
