"""The reader of Anthropic's streamed Messages API, whose SSE events are typed::

    message_start        {"message": {"usage": {"input_tokens": 25, "output_tokens": 1}}}
    content_block_delta  {"index": 0, "delta": {"type": "text_delta", "text": "Hel"}}
    content_block_start  {"index": 1, "content_block": {"type": "tool_use", "name": "issue_refund", "input": {}}}
    content_block_delta  {"index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"invoice_id\""}}
    message_delta        {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 15}}
    message_stop         {}
    ping, content_block_stop, a text block's content_block_start: nothing for us
    error                {"error": {"type": "overloaded_error", "message": "Overloaded"}}

Stop reasons are translated to the OpenAI vocabulary the rest of the agent uses (``stop``, ``length``).
A tool use is assembled from its start and its ``input_json_delta`` pieces and leaves, whole, on the last
chunk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent.llm.errors import ProviderStreamFailed
from agent.llm.openai_chunks import ToolCallDelta, assemble_tool_calls
from agent.llm.types import Chunk

if TYPE_CHECKING:
    from collections.abc import AsyncIterable, AsyncIterator

__all__ = ("AnthropicUsage", "finish_reason", "read_events")

_STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
_DETAIL_CHARS = 200


class AnthropicUsage(msgspec.Struct, frozen=True):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None

    @property
    def all_input_tokens(self) -> int:
        """Input tokens, cached or not: each of them was part of the prompt."""
        return (self.input_tokens or 0) + (self.cache_creation_input_tokens or 0) + (self.cache_read_input_tokens or 0)


class _Message(msgspec.Struct, frozen=True):
    usage: AnthropicUsage = msgspec.field(default_factory=AnthropicUsage)


class _Delta(msgspec.Struct, frozen=True):
    type: str | None = None
    text: str | None = None
    partial_json: str | None = None
    stop_reason: str | None = None


class _Block(msgspec.Struct, frozen=True):
    type: str | None = None
    name: str | None = None


class _Event(msgspec.Struct, frozen=True):
    type: str
    index: int = 0
    message: _Message | None = None
    content_block: _Block | None = None
    delta: _Delta | None = None
    usage: AnthropicUsage | None = None
    error: Any = None


_decoder = msgspec.json.Decoder(_Event)


def finish_reason(stop_reason: str | None) -> str:
    return _STOP_REASONS.get(stop_reason or "end_turn", stop_reason or "stop")


async def read_events(data: AsyncIterable[str], *, model: str, provider: str) -> AsyncIterator[Chunk]:
    """Our chunks from the ``data`` of a Messages stream: text as it comes, then one last chunk with counts."""
    input_tokens = output_tokens = 0
    stop_reason: str | None = None
    calls: list[ToolCallDelta] = []
    async for payload in data:
        try:
            event = _decoder.decode(payload)
        except msgspec.DecodeError as exc:
            raise ProviderStreamFailed(f"{provider} sent a malformed stream event ({exc})") from None
        if event.type == "error":
            raise ProviderStreamFailed(f"{provider} reported an error mid-stream: {_error_message(event.error)}")
        if event.type == "message_start" and event.message is not None:
            input_tokens = event.message.usage.all_input_tokens
            output_tokens = event.message.usage.output_tokens or 0
        elif event.type == "content_block_start" and event.content_block and event.content_block.type == "tool_use":
            calls.append(ToolCallDelta.of(event.index, name=event.content_block.name))
        elif event.type == "content_block_delta" and event.delta is not None and event.delta.partial_json:
            calls.append(ToolCallDelta.of(event.index, arguments=event.delta.partial_json))
        elif event.type == "content_block_delta" and event.delta is not None and event.delta.text:
            yield Chunk(delta=event.delta.text, model=model, provider=provider)
        elif event.type == "message_delta":
            if event.delta is not None and event.delta.stop_reason:
                stop_reason = event.delta.stop_reason
            if event.usage is not None:
                output_tokens = event.usage.output_tokens or output_tokens
                input_tokens = max(input_tokens, event.usage.all_input_tokens)
        elif event.type == "message_stop":
            yield Chunk(
                delta="",
                model=model,
                provider=provider,
                finish_reason=finish_reason(stop_reason),
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                tool_calls=assemble_tool_calls(calls, provider),
            )
            return
    raise ProviderStreamFailed(f"{provider}'s stream ended before the model finished its answer")


def _error_message(error: object) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    return str(message)[:_DETAIL_CHARS]
