"""The answer's shape as a JSON schema and the actions as tools, built for one question.

The schema encodes the prompt's rules where a schema can: citations name only the passages retrieved, an
action names only a record the user named (a model cannot invent ``INV-1234``), and with no passages there
is nothing to cite. Two dialects of the same shape go to the providers (``StructuredOutput``): ``strict``
(OpenAI's strict ``json_schema``, Anthropic's ``output_config``: one root object, every property required,
nullable instead of optional, no length bounds) and ``guided`` (llama.cpp's grammar: a branch per kind at
the root, one citation, bounded text), which is what lets SmolLM2-135M write a valid answer every time.
``kind`` always comes first, so the text of a proposal can be held until the action is checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.actions.intent import find_records, read_requests
from agent.llm.types import StructuredOutput, ToolSpec

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.actions import Action
    from agent.actions.intent import Requests

__all__ = ("GUIDED_TEXT_CHARS", "answer_format")

GUIDED_TEXT_CHARS = 320
"""Longest text the guided schema allows: a small model rambles into its token limit otherwise."""
_NAME = "support_answer"


def answer_format(
    doc_ids: Sequence[str], actions: Sequence[Action], message: str
) -> tuple[StructuredOutput, tuple[ToolSpec, ...]]:
    """The schema of an answer to ``message`` given these passages and actions, and the actions as tools."""
    named = {action.name: _named_records(action, message) for action in actions}
    return (
        StructuredOutput(
            name=_NAME, strict=_strict(doc_ids, actions, named), guided=_guided(doc_ids, actions, named, message)
        ),
        tuple(
            ToolSpec(name=action.name, description=action.description, parameters=_arguments(action, named))
            for action in actions
        ),
    )


def _named_records(action: Action, message: str) -> list[str]:
    """The records of the action's kind the message names, in any spelling (``inv 1003``, ``ACC_2001``),
    as the canonical ids the action takes."""
    return sorted({r.record_id for r in find_records(message) if action.record_id.fullmatch(r.record_id)})


def _asked(action: Action, requests: Requests) -> bool:
    """Whether the message asks for this action (read by meaning, as the stub reads it): the small model's
    grammar offers a proposal only then, so "don't delete ACC-2001" cannot become a deletion."""
    return requests.of(action.name) is not None


def _arguments(action: Action, named: dict[str, list[str]]) -> dict[str, Any]:
    """The action's arguments: its record id, one of those the user named; none when the user named none
    (the action then asks for it)."""
    ids = named[action.name]
    properties = {action.argument: {"type": "string", "enum": ids}} if ids else {}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _action_object(action: Action, named: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"name": {"type": "string", "enum": [action.name]}, "arguments": _arguments(action, named)},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def _citations(doc_ids: Sequence[str]) -> dict[str, Any]:
    if not doc_ids:
        return {"type": "array", "items": {"type": "string", "enum": ["none"]}, "maxItems": 0}
    return {"type": "array", "items": {"type": "string", "enum": list(doc_ids)}}


def _strict(doc_ids: Sequence[str], actions: Sequence[Action], named: dict[str, list[str]]) -> dict[str, Any]:
    action_schema: dict[str, Any] = {"anyOf": [{"type": "null"}, *(_action_object(a, named) for a in actions)]}
    citations = _citations(doc_ids)
    citations.pop("maxItems", None)
    return {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["answer", "no_answer", "action_proposal"]},
            "citations": citations,
            "text": {"type": "string"},
            "action": action_schema,
        },
        "required": ["kind", "citations", "text", "action"],
        "additionalProperties": False,
    }


def _guided(
    doc_ids: Sequence[str], actions: Sequence[Action], named: dict[str, list[str]], message: str
) -> dict[str, Any]:
    """A branch per kind. An answer cites exactly one passage; with none retrieved only ``no_answer`` (or a
    proposal) is possible; a proposal is only offered for a record the user named."""
    citations: dict[str, Any] = (
        {"type": "array", "items": {"type": "string", "enum": list(doc_ids)}, "minItems": 1, "maxItems": 1}
        if doc_ids
        else {"type": "array", "items": {"type": "string", "enum": ["none"]}, "maxItems": 0}
    )
    text = {"type": "string", "maxLength": GUIDED_TEXT_CHARS}
    shapes: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["answer", "no_answer"] if doc_ids else ["no_answer"]},
                "citations": citations,
                "text": text,
            },
            "required": ["kind", "citations", "text"],
            "additionalProperties": False,
        }
    ]
    requests = read_requests(message)
    proposable = [_action_object(a, named) for a in actions if named[a.name] and _asked(a, requests)]
    if proposable:
        shapes.append(
            {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["action_proposal"]},
                    "action": proposable[0] if len(proposable) == 1 else {"anyOf": proposable},
                    "text": text,
                },
                "required": ["kind", "action", "text"],
                "additionalProperties": False,
            }
        )
    return shapes[0] if len(shapes) == 1 else {"anyOf": shapes}
