from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from agent.llm.cache import CachedStreamingLLM, ModelCallCache, cached
from agent.llm.openai import OpenAICompatibleClient
from agent.llm.protocol import StreamingLLMClient
from agent.llm.types import ChatMessage, LLMParams, StructuredOutput
from tests.agent.llm.conftest import MESSAGES
from tests.agent.llm.fake_server import FakeProviderServer, Reply, json_reply, openai_stream

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from agent.llm.http_transport import RetryPolicy
    from agent.llm.protocol import LLMClient
    from agent.llm.types import Chunk

PARAMS = LLMParams(max_tokens=64)
PIECES = ["Open ", "Settings ", "> Security."]


def completion_body(text: str, usage: tuple[int, int] = (30, 9)) -> Reply:
    return json_reply(
        {
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
        }
    )


async def collect(
    client: LLMClient, messages: Sequence[ChatMessage] = MESSAGES, params: LLMParams = PARAMS
) -> list[Chunk]:
    assert isinstance(client, StreamingLLMClient)
    return [chunk async for chunk in client.stream(messages, params)]


async def test_a_streamed_call_is_answered_once_then_replayed_piece_by_piece_with_its_counts(
    tmp_path: Path, retry: RetryPolicy
) -> None:
    cache = ModelCallCache.in_directory(tmp_path)
    async with FakeProviderServer([Reply(events=openai_stream(PIECES, usage=(21, 7)))]) as server:
        client = cached(OpenAICompatibleClient(base_url=server.base_url, model="m", retry=retry), cache)
        try:
            first = await collect(client)
            again = await collect(client)
        finally:
            await client.aclose()

    assert isinstance(client, CachedStreamingLLM)
    assert len(server.requests) == 1
    assert again == first
    assert [c.delta for c in again] == [*PIECES, ""]
    assert (again[-1].input_tokens, again[-1].output_tokens, again[-1].finish_reason) == (21, 7, "stop")
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)
    assert (cache.stats.saved_input_tokens, cache.stats.saved_output_tokens, cache.stats.saved_tokens) == (21, 7, 28)


async def test_the_cache_outlives_the_process_that_filled_it(tmp_path: Path, retry: RetryPolicy) -> None:
    async with FakeProviderServer([completion_body("Use the reset link.")]) as server:
        for _ in range(2):
            cache = ModelCallCache.in_directory(tmp_path)
            client = cached(OpenAICompatibleClient(base_url=server.base_url, model="m", retry=retry), cache)
            answer = await client.complete(MESSAGES, PARAMS)
            await client.aclose()
            cache.close()

    assert len(server.requests) == 1
    assert (answer.text, answer.input_tokens, answer.output_tokens) == ("Use the reset link.", 30, 9)
    assert (cache.stats.hits, cache.stats.saved_tokens) == (1, 39)


async def test_messages_parameters_schema_model_and_scope_each_make_a_different_call(
    tmp_path: Path, retry: RetryPolicy
) -> None:
    cache = ModelCallCache.in_directory(tmp_path)
    schema = StructuredOutput(name="answer", strict={"type": "object"}, guided={"type": "object"})
    variants: list[tuple[str, Sequence[ChatMessage], LLMParams, str]] = [
        ("m", MESSAGES, PARAMS, ""),
        ("m", (*MESSAGES[:1], ChatMessage("user", "And my invoice?")), PARAMS, ""),
        ("m", MESSAGES, LLMParams(max_tokens=64, temperature=0.7), ""),
        ("m", MESSAGES, LLMParams(max_tokens=64, structured=schema), ""),
        ("other-model", MESSAGES, PARAMS, ""),
        ("m", MESSAGES, PARAMS, "epoch 2"),
    ]
    async with FakeProviderServer([completion_body("ok")]) as server:
        for model, messages, params, scope in variants:
            client = cached(
                OpenAICompatibleClient(base_url=server.base_url, model=model, retry=retry), cache, scope=scope
            )
            await client.complete(messages, params)
            await client.complete(messages, params)
            await client.aclose()

    assert len(server.requests) == len(variants)
    assert (cache.stats.hits, cache.stats.misses) == (len(variants), len(variants))


async def test_a_stream_that_broke_off_is_not_kept(tmp_path: Path, retry: RetryPolicy) -> None:
    cache = ModelCallCache.in_directory(tmp_path)
    broken = Reply(events=openai_stream(PIECES), drop_after=2)
    whole = Reply(events=openai_stream(PIECES))
    async with FakeProviderServer([broken, whole]) as server:
        client = cached(OpenAICompatibleClient(base_url=server.base_url, model="m", retry=retry), cache)
        try:
            with contextlib.suppress(Exception):
                await collect(client)
            chunks = await collect(client)
        finally:
            await client.aclose()

    assert len(server.requests) == 2
    assert [c.delta for c in chunks] == [*PIECES, ""]
    assert cache.stats.hits == 0
