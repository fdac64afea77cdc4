"""One model call, streamed when the client can stream, as ``token_delta`` and ``cost_updated`` payloads.

Buffered clients are handled as a stream of one chunk, so both kinds give the same events and the
concatenation of every ``token_delta.text`` is always the final answer text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent.llm.errors import ProviderStreamFailed
from agent.llm.streaming import stream_answer
from agent.llm.types import ToolCall
from agent.llm.visible_text import VisibleText
from contracts import CostUpdated, TokenDelta

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from agent.deps import AgentDeps
    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("ModelReply", "call_model")


class ModelReply(msgspec.Struct, frozen=True, kw_only=True):
    raw: str
    """Everything the model wrote."""
    text: str
    """The visible answer text: exactly the concatenation of the emitted ``token_delta.text``."""
    usage: CostUpdated
    tool_calls: tuple[ToolCall, ...] = ()


async def call_model(
    deps: AgentDeps,
    messages: Sequence[ChatMessage],
    params: LLMParams,
    emit: Callable[[Any], None],
    finish: Callable[[str, str, tuple[ToolCall, ...]], Awaitable[str]],
) -> ModelReply:
    """Run the model and emit its chunks.

    ``finish(raw, shown, tool_calls)`` is called once the whole answer is in, before the last chunk goes
    out; the text it returns is appended to the last chunk's visible text (held or buffered text, or what
    is said in place of a proposal that cannot happen).
    """
    visible = VisibleText()
    raw: list[str] = []
    shown: list[str] = []
    opened = deps.clock.now_ns()
    async for chunk in stream_answer(deps.llm, messages, params):
        raw.append(chunk.delta)
        text = visible.feed(chunk.delta)
        metadata: dict[str, Any] = {"provider": chunk.provider}
        last = chunk.finish_reason is not None
        if last:
            text += await finish("".join(raw), visible.shown, chunk.tool_calls)
            metadata["usage"] = "estimated" if chunk.usage_estimated else "reported"
        shown.append(text)
        emit(
            TokenDelta(
                delta=chunk.delta,
                text=text,
                finish_reason=chunk.finish_reason,
                input_tokens=chunk.input_tokens,
                output_tokens=chunk.output_tokens,
                latency_ms=round((deps.clock.now_ns() - opened) / 1e6, 3),
                model=chunk.model,
                metadata=metadata,
            )
        )
        if last:
            cost = deps.prices.cost_usd(chunk.model, chunk.input_tokens, chunk.output_tokens)
            usage = CostUpdated(
                model=chunk.model,
                input_tokens=chunk.input_tokens,
                output_tokens=chunk.output_tokens,
                cost_usd=cost,
            )
            emit(usage)
            return ModelReply(raw="".join(raw), text="".join(shown), usage=usage, tool_calls=chunk.tool_calls)
    raise ProviderStreamFailed("the model's stream ended without a final chunk")
