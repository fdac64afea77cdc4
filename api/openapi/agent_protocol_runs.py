"""How a run's request (``RunCreate``) appears in the OpenAPI document: for the assistants this service serves.

msgspec gives ``RunCreate`` the fields every graph shares. What the server also refuses depends on the graphs it
serves, which only the running service knows, so the document it serves says it here: ``assistant_id`` is one of
the served assistants (a graph id, or its assistant id); a run takes ``input`` or ``command.resume``, not both;
and a run of the support agent takes its turn as a message (``SupportMessageInput``, ``SupportMessagesInput``) and
its resume as a decision (``SupportDecisionValue``), while any other graph takes its input as it is.
``api.agent_protocol.requests`` refuses exactly the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.graphs import SUPPORT_GRAPH_ID, assistant_id_of

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ("BUILT_IN_ASSISTANTS", "ServedAssistant", "describe_run_create", "narrow_webhooks")

ServedAssistant = tuple[str, str]
"""A served graph: its graph id and its assistant id."""
BUILT_IN_ASSISTANTS: tuple[ServedAssistant, ...] = ((SUPPORT_GRAPH_ID, assistant_id_of(SUPPORT_GRAPH_ID)),)
"""What the service serves with no ``langgraph.json``: the support agent (``harness docs`` writes this document)."""

_RESPONSES = frozenset({"Cron", "ThreadRun"})
"""Components that show a webhook rather than take one."""
_NOT_NULL = {"not": {"type": "null"}}
_RESUMES = {"type": "object", "required": ["resume"], "properties": {"resume": _NOT_NULL}}
_INPUT_AND_RESUME = {"required": ["input", "command"], "properties": {"input": _NOT_NULL, "command": _RESUMES}}


def describe_run_create(components: dict[str, Any], served: Iterable[ServedAssistant], ref: str) -> None:
    """Narrow the ``RunCreate`` component of ``components`` to what the service serves (``ref``: the template of a
    component's ``$ref``)."""
    schema = components["RunCreate"]
    graphs = list(served)
    ids = [name for graph in graphs for name in graph]
    schema["properties"]["assistant_id"] = {
        **schema["properties"]["assistant_id"],
        "type": "string",
        "enum": ids,
        "description": "A served assistant: its graph id, or its assistant id (" + _listed(graphs) + ").",
    }
    rules: list[dict[str, Any]] = [{"not": _INPUT_AND_RESUME}]
    support = [name for graph in graphs if graph[0] == SUPPORT_GRAPH_ID for name in graph]
    if support:
        support_run = {"anyOf": [_support_turn(ref), _support_resume(ref)]}
        if len(support) == len(ids):
            rules.append(support_run)
        else:
            chosen = {"required": ["assistant_id"], "properties": {"assistant_id": {"enum": support}}}
            rules.append({"if": chosen, "then": support_run})
    schema["allOf"] = rules


def narrow_webhooks(components: dict[str, Any], pattern: str | None) -> None:
    """Every request's ``webhook`` (a run's, a cron's) as ``HARNESS_WEBHOOK_ALLOWED_HOSTS`` has it
    (``api.webhooks.webhook_pattern``; None: no host is allowed, the field is null or absent)."""
    for schema in components.values():
        field = schema.get("properties", {}).get("webhook")
        if field is None or schema.get("title") in _RESPONSES:
            continue
        described = field.get("description") or next(
            (each["description"] for each in field.get("anyOf", []) if "description" in each), ""
        )
        if pattern is None:
            schema["properties"]["webhook"] = {
                "type": "null",
                "default": None,
                "description": f"{described} Webhooks are off here (`HARNESS_WEBHOOK_ALLOWED_HOSTS` names no host): "
                "null or absent.",
            }
        else:
            schema["properties"]["webhook"] = {
                "anyOf": [{"type": "string", "pattern": pattern}, {"type": "null"}],
                "default": None,
                "description": f"{described} The hosts allowed here are those the pattern names (any case, an "
                "optional port).",
            }


def _support_turn(ref: str) -> dict[str, Any]:
    names = ("SupportMessageInput", "SupportMessagesInput")
    return {
        "required": ["input"],
        "properties": {"input": {"anyOf": [{"$ref": ref.format(name=name)} for name in names]}},
    }


def _support_resume(ref: str) -> dict[str, Any]:
    decision = {"$ref": ref.format(name="SupportDecisionValue")}
    return {
        "required": ["command"],
        "properties": {"command": {"type": "object", "required": ["resume"], "properties": {"resume": decision}}},
    }


def _listed(graphs: list[ServedAssistant]) -> str:
    return ", ".join(f"`{graph_id}` or `{assistant_id}`" for graph_id, assistant_id in graphs)
