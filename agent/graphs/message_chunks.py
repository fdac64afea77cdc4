"""A model's streamed message chunks, redacted across chunks before ``to_json_safe`` reads them one by one.

A chunk's text content and each streamed tool call's argument pieces go through ``PiecewiseRedactor``, keyed
by the message's id: a chunk may carry less text than the model wrote (what could still turn out to be part of
a card number waits), and the message's last chunk (``chunk_position == "last"``, which LangChain's chat
models always send, or a ``finish_reason``) carries the rest. A chunk's ``tool_calls`` and
``invalid_tool_calls`` are read again from its redacted pieces, as LangChain reads them. Content given as a
list of blocks, and whole messages (a node's returned ``ToolMessage``), are redacted as they are, whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from langchain_core.messages import AIMessageChunk, BaseMessageChunk

from agent.graphs.json_safe import HeadedDict, PreparedValues
from agent.graphs.piecewise_redaction import PiecewiseRedactor

if TYPE_CHECKING:
    from langchain_core.messages import ToolCallChunk

__all__ = ("ChunkRedactor",)

_AI_CHUNK_FIELDS = tuple(AIMessageChunk.model_fields)
_TAIL_FIELDS = _AI_CHUNK_FIELDS[1:]
_CONTENT_FIRST = _AI_CHUNK_FIELDS[0] == "content"


class ChunkRedactor:
    def __init__(self) -> None:
        self._pieces = PiecewiseRedactor()
        self._tails = PreparedValues()

    def dump(self, message: Any, *, depth: int | None = None) -> Any:
        """A chunk with text content as its ``model_dump()``, redacted across chunks; anything else as it is.
        Given ``depth``, where ``to_json_safe`` meets it in the part, a plain text chunk is a ``HeadedDict``
        instead: its fields but its content are converted once per message."""
        if not isinstance(message, BaseMessageChunk) or not isinstance(message.content, str):
            return message
        last = getattr(message, "chunk_position", None) == "last" or bool(
            message.response_metadata.get("finish_reason")
        )
        key = message.id or id(message)
        content = self._pieces.feed((key, "content"), message.content, last=last)
        head = self._plain_head(message, content, depth) if depth is not None and _plain_text(message) else None
        if head is not None:
            return head
        dumped = message.model_dump()
        dumped["content"] = content
        if isinstance(message, AIMessageChunk) and message.tool_call_chunks:
            pieces: list[ToolCallChunk] = [
                {**call, "args": self._pieces.feed((key, "tool", call.get("index")), call["args"] or "", last=last)}
                for call in message.tool_call_chunks
            ]
            reread = AIMessageChunk(content="", tool_call_chunks=pieces)
            dumped.update(
                tool_call_chunks=pieces,
                tool_calls=[dict(call) for call in reread.tool_calls],
                invalid_tool_calls=[dict(call) for call in reread.invalid_tool_calls],
            )
        return dumped

    def _plain_head(self, message: AIMessageChunk, content: str, depth: int) -> HeadedDict | None:
        values = (message.type, message.name, message.id, message.chunk_position)
        if any(value is not None and value.__class__ is not str for value in values):
            return None
        prepared = self._tails.prepared_tail(
            values, depth, lambda: {name: getattr(message, name) for name in _TAIL_FIELDS}
        )
        return HeadedDict("content", content, prepared) if prepared is not None else None


def _plain_text(message: BaseMessageChunk) -> TypeGuard[AIMessageChunk]:
    """Whether ``message`` is a text chunk whose fields but its content are strings, ``None`` and empty
    containers (most of a stream), so its ``model_dump()`` is its fields as they are."""
    return (
        message.__class__ is AIMessageChunk
        and _CONTENT_FIRST
        and not message.__pydantic_extra__
        and message.usage_metadata is None
        and not (
            message.additional_kwargs
            or message.response_metadata
            or message.tool_calls
            or message.invalid_tool_calls
            or message.tool_call_chunks
        )
    )
