"""What a client's A2A message says to a graph: a new run's input, or the answer to the interrupt its task waits at.

A new run: for a graph whose input has ``messages`` (a chat), the message's text as a human message, with the
client's message id; for any other graph, the message's data part, a JSON object, is the input. An answer: the
message's data part as it is (``{"decision": "approve"}``), else its text (``approve``), is the value the
``interrupt()`` returns.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

from api.a2a.errors import ContentTypeNotSupported, InvalidParams
from api.chat_runs import as_graph_input, takes_messages
from api.exceptions import ApiError
from api.request_checks.client_ids import refuse_personal_ids
from contracts.ids import CLIENT_ID_PATTERN

if TYPE_CHECKING:
    from agent.graphs import RegisteredGraph
    from api.a2a.types import Message, Part

__all__ = ("answer_value", "graph_input", "read_parts")

_CLIENT_ID = re.compile(CLIENT_ID_PATTERN)


def read_parts(message: Message) -> tuple[str, list[Any]]:
    """The message's text (its text parts joined) and its data parts' values; ``A2AError`` for a part that is not
    exactly one of text or data, or for ids of the client's that are not ids (the message's id is stored with the
    thread's messages: one of another shape, or holding a personal number, is refused as on every route)."""
    for field, value in (("message.messageId", message.message_id), ("message.contextId", message.context_id)):
        if value and not _CLIENT_ID.match(value):
            raise InvalidParams(f"{field} is not an id: 1-128 of [A-Za-z0-9_.:-].")
    try:
        refuse_personal_ids([("message.messageId", message.message_id), ("message.contextId", message.context_id)])
    except ApiError as refused:
        raise InvalidParams(refused.detail, code=refused.code) from None
    if not message.parts:
        raise InvalidParams("A message has at least one part.")
    texts: list[str] = []
    data: list[Any] = []
    for index, part in enumerate(message.parts):
        kind = _kind(part, index)
        if kind == "text":
            texts.append(part.text or "")
        else:
            data.append(part.data)
    return "\n".join(texts), data


def _kind(part: Part, index: int) -> str:
    given = [name for name, value in (("text", part.text), ("raw", part.raw), ("url", part.url)) if value is not None]
    if part.data is not msgspec.UNSET:
        given.append("data")
    if len(given) != 1:
        what = " and ".join(given) if given else "none of text, raw, url or data"
        raise InvalidParams(f"message.parts[{index}] holds {what}: a part holds exactly one.")
    if given[0] in ("raw", "url"):
        raise ContentTypeNotSupported(
            f"message.parts[{index}] is a file: the graphs served here take text and JSON data parts."
        )
    return given[0]


def graph_input(registered: RegisteredGraph, message: Message) -> Any:
    """A new run's input."""
    text, data = read_parts(message)
    if takes_messages(registered) and text.strip():
        return as_graph_input([{"type": "human", "content": text, "id": message.message_id}])
    objects = [value for value in data if isinstance(value, dict)]
    if len(objects) != 1:
        wanted = "its text or " if takes_messages(registered) else ""
        raise InvalidParams(
            f"Graph {registered.graph_id!r} takes {wanted}one data part, a JSON object matching its input schema "
            "(the agent card's skill and GET /assistants/{id}/schemas show it)."
        )
    return objects[0]


def answer_value(message: Message) -> Any:
    """The value a message answers an interrupt with."""
    text, data = read_parts(message)
    if len(data) == 1:
        return data[0]
    if data:
        raise InvalidParams("An answer to an interrupt is one data part, or text.")
    return text.strip()
