"""Model clients for transport tests: ones that never stop, so only an abort can end their runs, and one
that holds its answer midway until the test lets it go on."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING

from agent.config import StubConfig
from agent.llm.stub import StubLLM
from agent.llm.types import Chunk, Completion

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("EndlessLLM", "GatedLLM")


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


class GatedLLM:
    """The stub's answer, held after its first ``hold_after`` chunks until the test sets ``gate``.

    While it is held the run cannot have finished, so what a client has received by then was delivered
    incrementally: a proof that needs no clock.
    """

    provider = "stub"

    def __init__(self, *, hold_after: int) -> None:
        self._stub = StubLLM(StubConfig(token_delay_ms=0))
        self._hold_after = hold_after
        self.gate = threading.Event()
        self.holding = threading.Event()

    @property
    def model(self) -> str:
        return self._stub.model

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        return await self._stub.complete(messages, params)

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        index = 0
        async for chunk in self._stub.stream(messages, params):
            if index == self._hold_after:
                self.holding.set()
                while not self.gate.is_set():
                    await asyncio.sleep(0.01)
            index += 1
            yield chunk
