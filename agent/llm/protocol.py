"""The seam between the agent and any language model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

__all__ = ("LLMClient", "StreamingLLMClient")


@runtime_checkable
class LLMClient(Protocol):
    """A model answering a conversation in one buffered call."""

    @property
    def model(self) -> str:
        """The model name reported in usage and priced by the cost table."""
        ...

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion: ...


@runtime_checkable
class StreamingLLMClient(LLMClient, Protocol):
    """A model that can also stream its answer chunk by chunk; the last chunk carries the counts."""

    def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]: ...
