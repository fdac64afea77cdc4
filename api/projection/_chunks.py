"""A chat model's text chunk read straight from its ``graph_part`` envelope's JSON: the one event a streamed answer
is made of thousands of, and of whose JSON (the message's empty fields, the run's metadata) a chat UI shows only
the text and the message's id, so the rest is skipped, not decoded."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ("TextChunk", "read_text_chunk")

_AI_CHUNK = "AIMessageChunk"


class TextChunk(msgspec.Struct, frozen=True, gc=False):
    """A chunk of text of a model's message, nothing else: no tool call chunk, not the message's last."""

    seq: int
    at: str
    message_id: str
    text: str


class _Message(msgspec.Struct):
    type: str = ""
    id: str | None = None
    content: Any = None
    tool_call_chunks: list[Any] | None = None
    chunk_position: str | None = None


class _Part(msgspec.Struct):
    mode: str
    data: msgspec.Raw


class _Envelope(msgspec.Struct):
    run_id: str
    seq: int
    at: str
    data: _Part


_read_envelope = msgspec.json.Decoder(_Envelope).decode
_read_message = msgspec.json.Decoder(tuple[_Message, msgspec.Raw]).decode


def read_text_chunk(envelope: bytes) -> TextChunk | None:
    """The text chunk ``envelope`` (a ``graph_part``'s JSON) is; None for any other part or message (a tool call's
    chunk, the message's last chunk, content in blocks, no text): those take ``RunProjection.project``'s way."""
    try:
        read = _read_envelope(envelope)
        if read.data.mode != "messages":
            return None
        message, _ = _read_message(read.data.data)
    except msgspec.ValidationError:
        return None
    text = message.content
    if (
        message.type != _AI_CHUNK
        or not isinstance(text, str)
        or not text
        or message.tool_call_chunks
        or message.chunk_position == "last"
    ):
        return None
    return TextChunk(seq=read.seq, at=read.at, message_id=message.id or f"{read.run_id}-{read.seq}", text=text)
