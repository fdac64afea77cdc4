"""Any client as a stream: streaming clients stream, buffered ones give their answer as one last chunk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.llm.protocol import StreamingLLMClient
from agent.llm.types import Chunk

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.protocol import LLMClient
    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("stream_answer",)


async def stream_answer(client: LLMClient, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
    """The client's stream, or its buffered answer as a single last chunk."""
    if isinstance(client, StreamingLLMClient):
        async for chunk in client.stream(messages, params):
            yield chunk
        return
    completion = await client.complete(messages, params)
    yield Chunk(
        delta=completion.text,
        model=completion.model,
        provider=completion.provider,
        finish_reason=completion.finish_reason,
        input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens,
        usage_estimated=completion.usage_estimated,
        tool_calls=completion.tool_calls,
    )
