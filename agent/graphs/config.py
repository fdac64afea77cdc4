"""The LangGraph CLI's ``langgraph.json``, read: which graphs to serve, the environment and the dependencies.

The file is the one ``langgraph dev`` and the LangGraph Agent Server read, so an existing project is served
as it is::

    {
      "graphs": {"agent": "./src/agent/graph.py:graph",
                 "research": {"path": "research.graph:make_graph", "description": "Plans, then researches"}},
      "env": ".env",
      "dependencies": ["./src", "langchain-openai"]
    }

- ``graphs``: a graph id to ``./path/to/file.py:attribute`` (relative to the file's folder) or
  ``package.module:attribute``, or to ``{"path": ..., "description": ...}``.
- ``env``: a dotenv file (relative to the file's folder) or a map of variables.
- ``dependencies``: local folders (``.``, ``./src``, ``../shared``) are put on ``sys.path``; anything else (a
  package name or spec) is this service's environment's business, reported, never installed.
- ``checkpointer.ttl``: the thread TTL, ``{"strategy": "delete", "default_ttl": <minutes>,
  "sweep_interval_minutes": <minutes>}`` (``ThreadTtl``); the checkpointer's other keys are ignored.
- ``auth.path``: a ``langgraph_sdk.Auth`` object, ``./auth.py:auth`` (relative to the file's folder) or
  ``package.module:auth`` (``AuthSpec``; loaded by ``api.auth.custom``); ``auth``'s other keys
  (``disable_studio_auth``, ``openapi``, ...) are ignored.
- ``store.index``: semantic search in the long-term store, ``{"embed": "./embed.py:embed", "dims": 384,
  "fields": ["$"]}`` (``StoreIndexSpec``): the function (or LangChain ``Embeddings`` object) that embeds texts, the
  length of its vectors, the fields of a value embedded (``$``: the whole value); the store's other keys are ignored.

Every other key of the format (``python_version``, ``dockerfile_lines``, ...) and any key
it does not know are collected in ``ignored_keys``, reported once at start and never fatal. Reading has no
side effect: ``agent.graphs.environment`` applies ``env`` and ``dependencies``. A file that cannot be read or
is malformed is a ``ConfigError`` whose one line names the file and the problem.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import msgspec

from agent.config import ConfigError

__all__ = (
    "KNOWN_IGNORED_KEYS",
    "AuthSpec",
    "GraphSpec",
    "GraphsConfig",
    "ObjectPath",
    "StoreIndexSpec",
    "ThreadTtl",
    "read_graphs_config",
)

KNOWN_IGNORED_KEYS = frozenset(
    {
        "api_version",
        "auth.cache",
        "auth.disable_studio_auth",
        "auth.openapi",
        "base_image",
        "checkpointer.serde",
        "dockerfile_lines",
        "encryption",
        "http",
        "image_distro",
        "keep_pkg_tools",
        "node_version",
        "pip_config_file",
        "pip_installer",
        "python_version",
        "store.ttl",
        "ui",
        "ui_config",
        "webhooks",
    }
)
"""Keys of the format this service has no use for: the Docker image's, and features it provides its own way."""
_READ_KEYS = frozenset({"graphs", "env", "dependencies", "checkpointer", "auth", "store", "$schema"})
_TTL_STRATEGIES = ("delete",)
"""The strategies of ``checkpointer.ttl`` served (the Agent Server documents ``delete`` alone)."""
_GRAPH_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")


class GraphSpec(msgspec.Struct, frozen=True, kw_only=True):
    """Where one graph is: exactly one of ``file`` and ``module``, and the attribute to take from it."""

    graph_id: str
    source: str
    """As the file wrote it, for messages."""
    attribute: str
    file: Path | None = None
    """An absolute path to the Python file."""
    module: str | None = None
    """A dotted module name, imported from ``sys.path``."""
    description: str | None = None


class ObjectPath(msgspec.Struct, frozen=True, kw_only=True):
    """Where an object a key names is (``auth.path``, ``store.index.embed``): exactly one of ``file`` and ``module``,
    and its attribute."""

    source: str
    """As the file wrote it, for messages."""
    attribute: str
    file: Path | None = None
    """An absolute path to the Python file."""
    module: str | None = None
    """A dotted module name, imported from ``sys.path``."""


AuthSpec = ObjectPath
"""Where ``auth.path``'s ``langgraph_sdk.Auth`` is."""


class StoreIndexSpec(msgspec.Struct, frozen=True, kw_only=True):
    """``store.index``: what embeds the long-term store's values for a ``query`` (``agent.stores.StoreIndex``)."""

    embed: ObjectPath
    """A function from a list of texts to their vectors (sync or async), or a LangChain ``Embeddings`` object."""
    dims: int
    """The length of every vector it answers."""
    fields: tuple[str, ...] = ("$",)
    """The paths of a value embedded (``$``: the whole value as JSON; ``text``, ``meta.tags[*]``...)."""


class ThreadTtl(msgspec.Struct, frozen=True, kw_only=True):
    """``checkpointer.ttl``: threads idle for ``default_ttl`` minutes are deleted whole, looked for every
    ``sweep_interval_minutes``."""

    strategy: str = "delete"
    default_ttl: float
    """Minutes a thread may stay idle (no run unfinished, none ended and no use since)."""
    sweep_interval_minutes: float = 60.0

    @property
    def idle_s(self) -> float:
        return self.default_ttl * 60

    @property
    def sweep_interval_s(self) -> float:
        return self.sweep_interval_minutes * 60


class GraphsConfig(msgspec.Struct, frozen=True, kw_only=True):
    path: Path
    """The ``langgraph.json`` itself (absolute)."""
    graphs: tuple[GraphSpec, ...]
    env_file: Path | None = None
    """``env`` as a dotenv file (absolute)."""
    env: dict[str, str] = msgspec.field(default_factory=dict)
    """``env`` as a map."""
    local_dependencies: tuple[Path, ...] = ()
    """Folders to put on ``sys.path`` (absolute, existing)."""
    other_dependencies: tuple[str, ...] = ()
    """Package names and specs, which this service does not install."""
    thread_ttl: ThreadTtl | None = None
    """``checkpointer.ttl``: None keeps threads until they are deleted (or retention empties them)."""
    auth: AuthSpec | None = None
    """``auth.path``: the custom authentication and authorization; None keeps the service's own identity."""
    store_index: StoreIndexSpec | None = None
    """``store.index``: semantic search in the long-term store; None refuses a ``query`` (422)."""
    ignored_keys: tuple[str, ...] = ()
    """Keys read and not used, sorted (``graphs.<id>.<key>`` for a graph's own, ``checkpointer.<key>`` for the
    checkpointer's)."""

    @property
    def folder(self) -> Path:
        return self.path.parent


class _GraphEntry(msgspec.Struct, kw_only=True):
    path: str
    description: str | None = None


def read_graphs_config(path: str | Path) -> GraphsConfig:
    """The configuration in ``path``; ``ConfigError`` naming the file when it cannot be used."""
    where = Path(path).expanduser().absolute()
    try:
        raw = msgspec.json.decode(where.read_bytes())
    except OSError as exc:
        raise ConfigError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    except msgspec.DecodeError as exc:
        raise ConfigError(
            f"{where}: not valid JSON ({_located(str(exc).removeprefix('JSON is malformed: '), where)})"
        ) from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must hold a JSON object, found {_json_type(raw)}")
    ignored = {key for key in raw if key not in _READ_KEYS}
    entries = raw.get("graphs")
    if isinstance(entries, dict):
        for graph_id, entry in entries.items():
            if isinstance(entry, dict):
                ignored |= {f"graphs.{graph_id}.{key}" for key in entry if key not in ("path", "description")}
    checkpointer = _converted(raw.get("checkpointer", {}), dict[str, Any] | None, "checkpointer", where) or {}
    ignored |= {f"checkpointer.{key}" for key in checkpointer if key != "ttl"}
    auth = _converted(raw.get("auth", {}), dict[str, Any] | None, "auth", where) or {}
    ignored |= {f"auth.{key}" for key in auth if key != "path"}
    store = _converted(raw.get("store", {}), dict[str, Any] | None, "store", where) or {}
    ignored |= {f"store.{key}" for key in store if key != "index"}
    graphs = _converted_map(raw.get("graphs", {}), str | _GraphEntry, "graphs", where)
    if not graphs:
        raise ConfigError(f'{where}: names no graph; add "graphs": {{"<id>": "./file.py:graph"}}')
    folder = where.parent
    local, other = _dependencies(
        _converted(raw.get("dependencies", []), list[str], "dependencies", where), folder, where
    )
    given_env = raw.get("env")
    if isinstance(given_env, dict):
        given_env = _converted_map(given_env, str, "env", where)
    else:
        given_env = _converted(given_env, str | None, "env", where)
    env_file = None
    env: dict[str, str] = {}
    if isinstance(given_env, str):
        env_file = folder / given_env
        if not env_file.is_file():
            raise ConfigError(f"{where}: env names {given_env!r}, which is not a file")
    elif given_env is not None:
        env = given_env
    return GraphsConfig(
        path=where,
        graphs=tuple(_spec(graph_id, entry, folder, where) for graph_id, entry in graphs.items()),
        env_file=env_file,
        env=env,
        local_dependencies=local,
        other_dependencies=other,
        thread_ttl=_thread_ttl(checkpointer.get("ttl"), where),
        auth=_auth(auth.get("path"), folder, where),
        store_index=_store_index(store.get("index"), folder, where),
        ignored_keys=tuple(sorted(ignored)),
    )


def _converted(value: Any, kind: Any, key: str, where: Path) -> Any:
    """``value`` as ``kind``, or a ``ConfigError`` naming the key's path in the file."""
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as exc:
        message = str(exc)
        message = message.replace("`$", f"`{key}") if " - at `$" in message else f"{message} - at `{key}`"
        raise ConfigError(f"{where}: {message}") from None


def _converted_map(value: Any, kind: Any, key: str, where: Path) -> dict[str, Any]:
    """A map of ``kind``, checked key by key (msgspec calls every key of a map ``[...]``)."""
    entries = _converted(value, dict[str, Any], key, where)
    return {name: _converted(entry, kind, f"{key}.{name}", where) for name, entry in entries.items()}


def _spec(graph_id: str, entry: str | _GraphEntry, folder: Path, where: Path) -> GraphSpec:
    if not _GRAPH_ID.fullmatch(graph_id):
        raise ConfigError(
            f"{where}: graph id {graph_id!r} must be 1 to 64 letters, digits, '_', '-' or '.' (it goes in URLs)"
        )
    source = entry if isinstance(entry, str) else entry.path
    description = None if isinstance(entry, str) else entry.description
    file, module, attribute = _object_path(source, f"graph {graph_id!r}", folder, where)
    return GraphSpec(
        graph_id=graph_id, source=source, attribute=attribute, file=file, module=module, description=description
    )


def _auth(given: Any, folder: Path, where: Path) -> AuthSpec | None:
    if given is None:
        return None
    source: str = _converted(given, str, "auth.path", where)
    file, module, attribute = _object_path(source, "auth.path", folder, where)
    return AuthSpec(source=source, attribute=attribute, file=file, module=module)


class _IndexEntry(msgspec.Struct, forbid_unknown_fields=True):
    embed: str
    dims: int
    fields: list[str] | None = None


def _store_index(given: Any, folder: Path, where: Path) -> StoreIndexSpec | None:
    """``store.index`` checked: an embedding function's path (a provider string such as ``openai:...`` needs a
    model this service cannot reach), positive ``dims``, the fields as paths."""
    if given is None:
        return None
    entry: _IndexEntry = _converted(given, _IndexEntry, "store.index", where)
    located, _, attribute = entry.embed.rpartition(":")
    if located and _MODULE.fullmatch(located) and not attribute.isidentifier():
        raise ConfigError(
            f"{where}: store.index.embed is {entry.embed!r}, a model provider's; this service embeds with a function "
            "of the project's: './embed.py:embed' (texts in, vectors out) or 'package.module:embeddings'"
        )
    embed = _object_path(entry.embed, "store.index.embed", folder, where)
    if entry.dims <= 0:
        raise ConfigError(f"{where}: store.index.dims must be a positive number of dimensions, found {entry.dims}")
    fields = tuple(entry.fields) if entry.fields else ("$",)
    if any(not field.strip() for field in fields):
        raise ConfigError(f"{where}: store.index.fields holds an empty path")
    return StoreIndexSpec(
        embed=ObjectPath(source=entry.embed, attribute=embed[2], file=embed[0], module=embed[1]),
        dims=entry.dims,
        fields=fields,
    )


def _object_path(source: str, named: str, folder: Path, where: Path) -> tuple[Path | None, str | None, str]:
    """``./file.py:attribute`` (a file, absolute) or ``package.module:attribute`` (a module): the file, the module
    and the attribute, or a ``ConfigError`` naming ``named``."""
    located, _, attribute = source.rpartition(":")
    if not located or not attribute.isidentifier():
        raise ConfigError(
            f"{where}: {named} is {source!r}; expected './path/to/file.py:attribute' or 'package.module:attribute'"
        )
    if "/" in located or "\\" in located or located.endswith(".py"):
        return (folder / located).resolve(), None, attribute
    if not _MODULE.fullmatch(located):
        raise ConfigError(f"{where}: {named} names module {located!r}, which is not a dotted module name")
    return None, located, attribute


def _thread_ttl(given: Any, where: Path) -> ThreadTtl | None:
    """``checkpointer.ttl`` checked: a strategy served, a positive ``default_ttl`` and ``sweep_interval_minutes``."""
    if given is None:
        return None
    key = "checkpointer.ttl"
    ttl: ThreadTtl = _converted(given, ThreadTtl, key, where)
    if ttl.strategy not in _TTL_STRATEGIES:
        raise ConfigError(
            f"{where}: {key}.strategy is {ttl.strategy!r}; this service serves {', '.join(map(repr, _TTL_STRATEGIES))}"
            " (an idle thread is deleted whole)"
        )
    for name in ("default_ttl", "sweep_interval_minutes"):
        minutes = getattr(ttl, name)
        if not math.isfinite(minutes) or minutes <= 0:
            raise ConfigError(f"{where}: {key}.{name} must be a positive number of minutes, found {minutes!r}")
    return ttl


def _dependencies(entries: list[str], folder: Path, where: Path) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    local: list[Path] = []
    other: list[str] = []
    for entry in entries:
        if entry.startswith((".", "/")):
            resolved = (folder / entry).resolve()
            if not resolved.is_dir():
                raise ConfigError(f"{where}: dependency {entry!r} is not a folder")
            local.append(resolved)
        else:
            other.append(entry)
    return tuple(dict.fromkeys(local)), tuple(dict.fromkeys(other))


def _located(message: str, where: Path) -> str:
    """msgspec's ``(byte N)`` as a line and column a person can find."""
    found = _BYTE_OFFSET.search(message)
    if found is None:
        return message
    before = where.read_bytes()[: int(found[1])]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return message[: found.start()] + f"(line {line}, column {column})"


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
    return names.get(type(value), "null")
