"""A model's streamed message chunks, redacted across chunks before ``to_json_safe`` reads them one by one.

A chunk's text content and each streamed tool call's argument pieces go through ``PiecewiseRedactor``, keyed
by the message's id: a chunk may carry less text than the model wrote (what could still turn out to be part of
a card number waits), and the message's last chunk (``chunk_position == "last"``, which LangChain's chat
models always send, or a ``finish_reason``) carries the rest. A chunk's ``tool_calls`` and
``invalid_tool_calls`` are read again from its redacted pieces, as LangChain reads them. Content given as a
list of blocks, and whole messages (a node's returned ``ToolMessage``), are redacted as they are, whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessageChunk, BaseMessageChunk

from agent.graphs.piecewise_redaction import PiecewiseRedactor

if TYPE_CHECKING:
    from langchain_core.messages import ToolCallChunk

__all__ = ("ChunkRedactor",)


class ChunkRedactor:
    def __init__(self) -> None:
        self._pieces = PiecewiseRedactor()

    def dump(self, message: Any) -> Any:
        """A chunk with text content as its ``model_dump()``, redacted across chunks; anything else as it is."""
        if not isinstance(message, BaseMessageChunk) or not isinstance(message.content, str):
            return message
        last = getattr(message, "chunk_position", None) == "last" or bool(
            message.response_metadata.get("finish_reason")
        )
        key = message.id or id(message)
        dumped = message.model_dump()
        dumped["content"] = self._pieces.feed((key, "content"), message.content, last=last)
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
