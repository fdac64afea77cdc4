"""The models the benchmark servers run the agent graph on, named on the command line.

- ``firehose N``: streams ``N`` short chunks with no pause between them (throughput, first token, replay);
- ``langchain N``: the Agent Protocol benchmark's LangChain chat model (``bench.graph.firehose``) streaming ``N``
  chunks of ``"token "``, as an ``LLMClient``: the support agent's ``/chat`` on the very chat model a graph's
  Agent Protocol run streams, so the two paths are compared on the same model (issue 35);
- ``silent``: a stream that never yields, so the run stays running and its SSE stream idle;
- ``stub``: the project's stub (``agent.llm.stub``) with no pause between tokens; "Please refund invoice
  INV-1001." makes it propose a refund, which pauses the run for approval.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.protocol import LLMClient
    from agent.llm.types import ChatMessage, Chunk, LLMParams

__all__ = ("FirehoseLLM", "LangChainFirehoseLLM", "SilentLLM", "model_for")


class FirehoseLLM:
    """A model that streams ``tokens`` short chunks with no pause between them."""

    provider = "firehose"

    def __init__(self, tokens: int) -> None:
        self._tokens = tokens

    @property
    def model(self) -> str:
        return "firehose-1"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        from agent.llm.types import Chunk

        for index in range(self._tokens):
            last = index == self._tokens - 1
            yield Chunk(
                delta="tok ",
                model=self.model,
                provider=self.provider,
                finish_reason="stop" if last else None,
                input_tokens=10 if last else 0,
                output_tokens=self._tokens if last else 0,
            )
            if index % 64 == 0:
                await asyncio.sleep(0)


class LangChainFirehoseLLM:
    """``bench.graph.firehose.FirehoseChatModel`` streaming ``tokens`` chunks, read through LangChain's ``astream``."""

    provider = "firehose"

    def __init__(self, tokens: int) -> None:
        from bench.graph.firehose import FirehoseChatModel

        self._tokens = tokens
        self._model = FirehoseChatModel()

    @property
    def model(self) -> str:
        return "firehose-langchain"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        from langchain_core.messages import HumanMessage

        from agent.llm.types import Chunk

        count = 0
        async for message in self._model.astream([HumanMessage(str(self._tokens))]):
            count += 1
            last = count == self._tokens
            yield Chunk(
                delta=str(message.text),  # a TextAccessor, a str subclass msgspec does not encode
                model=self.model,
                provider=self.provider,
                finish_reason="stop" if last else None,
                input_tokens=10 if last else 0,
                output_tokens=self._tokens if last else 0,
            )


class SilentLLM:
    """A model whose stream never yields a chunk: the turn waits on it until the server stops."""

    provider = "silent"

    @property
    def model(self) -> str:
        return "silent-1"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        await asyncio.get_running_loop().create_future()
        yield  # type: ignore[misc]  # never reached: this is an async generator that never yields


def model_for(spec: str) -> LLMClient | None:
    """The model named by ``spec`` (``firehose:N``, ``silent``, ``stub``); None means the configured stub."""
    name, _, count = spec.partition(":")
    if name == "firehose":
        return FirehoseLLM(int(count))
    if name == "langchain":
        return LangChainFirehoseLLM(int(count))
    if name == "silent":
        return SilentLLM()
    if name == "stub":
        return None
    raise ValueError(f"unknown bench model {spec!r}: firehose:N, langchain:N, silent or stub")
