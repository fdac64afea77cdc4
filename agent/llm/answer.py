"""Reading a model's structured answer ``{"kind": ..., "text": ...}``, degrading to plain text.

An action may also come as a tool call: then it is the proposal, whatever the text says.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.llm.types import ToolCall

__all__ = ("ParsedAnswer", "ProposedAction", "parse_answer")

_MODEL_KINDS = frozenset({"answer", "no_answer", "action_proposal"})
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```\s*$")


class ProposedAction(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    arguments: dict[str, Any]


class ParsedAnswer(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    text: str
    citations: tuple[str, ...] = ()
    action: ProposedAction | None = None
    well_formed: bool = True
    """False when the model did not answer with the JSON object it was asked for."""


def parse_answer(raw: str, tool_calls: Sequence[ToolCall] = ()) -> ParsedAnswer:
    """The structured answer in ``raw``; invalid JSON becomes a plain-text answer, never an error. A tool
    call (the first) is the proposed action; the answer is then well formed whatever the text is."""
    if tool_calls:
        call = tool_calls[0]
        text = _text_of(raw)
        return ParsedAnswer(
            kind="action_proposal", text=text, action=ProposedAction(name=call.name, arguments=call.arguments)
        )
    value = _decode(raw)
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return ParsedAnswer(kind="answer", text=raw.strip(), well_formed=False)
    kind = str(value["kind"]) if value.get("kind") in _MODEL_KINDS else "answer"
    citations = value.get("citations")
    cited = tuple(c for c in citations if isinstance(c, str)) if isinstance(citations, list) else ()
    return ParsedAnswer(kind=kind, text=value["text"], citations=cited, action=_action(value.get("action")))


def _text_of(raw: str) -> str:
    """The ``text`` of a structured answer, the raw text otherwise (often empty beside a tool call)."""
    value = _decode(raw)
    return value["text"] if isinstance(value, dict) and isinstance(value.get("text"), str) else raw.strip()


def _decode(raw: str) -> object:
    """The JSON value in ``raw`` (code fences stripped), or None. A raw line break inside a string, which
    llama.cpp's JSON grammar lets through, is read as the line break it means."""
    body = _FENCE.sub("", raw.strip())
    if not body:
        return None
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError:
        pass
    try:
        return json.loads(body, strict=False)
    except ValueError:
        return None


def _action(value: object) -> ProposedAction | None:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    arguments = value.get("arguments")
    return ProposedAction(name=value["name"], arguments=arguments if isinstance(arguments, dict) else {})
