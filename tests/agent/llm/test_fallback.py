"""The provider cascade: buffered calls fall through; streams only before their first chunk."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import pytest

from agent.llm import (
    AnthropicClient,
    Completion,
    FallbackLLM,
    LLMParams,
    OpenAICompatibleClient,
    ProviderRejected,
    ProviderStreamFailed,
    ProviderUnavailable,
    StreamingLLMClient,
)
from agent.llm.types import Chunk
from tests.agent.llm.conftest import API_KEY, MESSAGES
from tests.agent.llm.fake_server import FakeProviderServer, Reply, anthropic_stream

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.http_transport import RetryPolicy
    from agent.llm.types import ChatMessage

PARAMS = LLMParams()


class ScriptedLLM:
    """A streaming client that yields ``pieces`` and then, if given, raises ``error``."""

    def __init__(self, name: str, pieces: Sequence[str] = (), error: Exception | None = None) -> None:
        self.name = name
        self._pieces = pieces
        self._error = error
        self.calls = 0

    @property
    def model(self) -> str:
        return f"{self.name}-model"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        self.calls += 1
        if self._error is not None:
            raise self._error
        return Completion(
            text="".join(self._pieces),
            model=self.model,
            provider=self.name,
            input_tokens=1,
            output_tokens=1,
            finish_reason="stop",
        )

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        self.calls += 1
        for piece in self._pieces:
            yield Chunk(delta=piece, model=self.model, provider=self.name)
        if self._error is not None:
            raise self._error
        yield Chunk(
            delta="", model=self.model, provider=self.name, finish_reason="stop", input_tokens=1, output_tokens=1
        )


class BufferedOnlyLLM(ScriptedLLM):
    stream = None  # type: ignore[assignment]


async def collect(llm: FallbackLLM, into: list[Chunk] | None = None) -> list[Chunk]:
    chunks = [] if into is None else into
    async for chunk in llm.stream(MESSAGES, PARAMS):
        chunks.append(chunk)
    return chunks


async def test_a_buffered_call_falls_through_to_the_next_provider() -> None:
    first = ScriptedLLM("first", error=ProviderUnavailable("first is down"))
    second = ScriptedLLM("second", ["hello"])

    completion = await FallbackLLM([first, second]).complete(MESSAGES, PARAMS)

    assert (completion.text, completion.provider) == ("hello", "second")
    assert first.calls == second.calls == 1


async def test_a_buffered_call_falls_through_a_rejection_too() -> None:
    first = ScriptedLLM("first", error=ProviderRejected("bad key"))
    completion = await FallbackLLM([first, ScriptedLLM("second", ["hi"])]).complete(MESSAGES, PARAMS)
    assert completion.provider == "second"


async def test_when_every_provider_fails_the_error_names_them_all() -> None:
    cascade = FallbackLLM(
        [ScriptedLLM("a", error=ProviderRejected("a: bad key")), ScriptedLLM("b", error=ProviderUnavailable("b: down"))]
    )
    with pytest.raises(ProviderUnavailable, match="a: bad key; b: down"):
        await cascade.complete(MESSAGES, PARAMS)

    rejected = FallbackLLM(
        [ScriptedLLM("a", error=ProviderRejected("a")), ScriptedLLM("b", error=ProviderRejected("b"))]
    )
    with pytest.raises(ProviderRejected):
        await rejected.complete(MESSAGES, PARAMS)


async def test_a_stream_falls_through_while_nothing_was_yielded() -> None:
    first = ScriptedLLM("first", error=ProviderUnavailable("first is down"))
    second = ScriptedLLM("second", ["Hel", "lo"])
    cascade = FallbackLLM([first, second])

    chunks = await collect(cascade)

    assert isinstance(cascade, StreamingLLMClient)
    assert [c.delta for c in chunks] == ["Hel", "lo", ""]
    assert {c.provider for c in chunks} == {"second"}


async def test_a_stream_that_broke_off_after_its_first_chunk_is_never_switched() -> None:
    first = ScriptedLLM("first", ["Hel"], error=ProviderUnavailable("connection reset"))
    second = ScriptedLLM("second", ["Goodbye"])
    received: list[Chunk] = []

    with pytest.raises(ProviderStreamFailed, match="connection reset") as failure:
        await collect(FallbackLLM([first, second]), received)

    assert [c.delta for c in received] == ["Hel"]
    assert second.calls == 0
    assert failure.value.retryable is True


async def test_a_buffered_only_provider_in_a_chain_streams_one_last_chunk() -> None:
    first = ScriptedLLM("first", error=ProviderUnavailable("down"))
    chunks = await collect(FallbackLLM([first, BufferedOnlyLLM("second", ["whole answer"])]))

    assert [(c.delta, c.finish_reason, c.provider) for c in chunks] == [("whole answer", "stop", "second")]


async def test_a_stream_that_fails_everywhere_is_unavailable() -> None:
    cascade = FallbackLLM(
        [ScriptedLLM("a", error=ProviderUnavailable("a down")), ScriptedLLM("b", error=ProviderStreamFailed("b"))]
    )
    with pytest.raises(ProviderUnavailable, match="every provider failed"):
        await collect(cascade)


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_openai_down_then_anthropic_over_real_http(retry: RetryPolicy) -> None:
    openai = OpenAICompatibleClient(base_url=f"http://127.0.0.1:{unused_port()}/v1", api_key=API_KEY, retry=retry)
    async with FakeProviderServer([Reply(events=anthropic_stream(["Hi", " there"]))]) as server:
        anthropic = AnthropicClient(api_key="sk-ant-other", base_url=server.base_url, retry=retry)
        cascade = FallbackLLM([openai, anthropic])
        try:
            chunks = await collect(cascade)
        finally:
            await cascade.aclose()

    assert "".join(c.delta for c in chunks) == "Hi there"
    assert chunks[-1].provider == "anthropic"
    assert server.requests[0].headers["x-api-key"] == "sk-ant-other"
