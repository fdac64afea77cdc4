"""Model clients for transport tests: ones that never stop, so only an abort can end their runs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent.llm.types import Chunk, Completion

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("EndlessLLM",)


class EndlessLLM:
    """Streams ``chunk_chars`` of plain text every ``pause_s`` seconds, forever."""

    def __init__(self, *, chunk_chars: int = 64, pause_s: float = 0.001) -> None:
        self._chunk = "x" * (chunk_chars - 1) + " "
        self._pause_s = pause_s
        self.chunks_sent = 0

    @property
    def model(self) -> str:
        return "endless-1"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        raise NotImplementedError("EndlessLLM only streams")

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        while True:
            await asyncio.sleep(self._pause_s)
            self.chunks_sent += 1
            yield Chunk(delta=self._chunk, model=self.model, provider="endless")
