from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from agent.config import ConfigError
from agent.llm.concurrency import LimitedStreamingLLM, ProviderLimits, parse_limits
from agent.llm.protocol import StreamingLLMClient
from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

MESSAGES = (ChatMessage("user", "hi"),)


class HeldModel:
    """A model whose calls wait until the test lets them go, counting how many are inside at once."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.inside = 0
        self.most_inside = 0
        self.entered = asyncio.Queue[None]()
        self.release = asyncio.Event()

    @property
    def model(self) -> str:
        return "held"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        async for _ in self.stream(messages, params):
            pass
        return Completion(
            text="", model="held", provider=self.provider, input_tokens=1, output_tokens=1, finish_reason="stop"
        )

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        self.entered.put_nowait(None)
        try:
            yield Chunk(delta="a", model="held", provider=self.provider)
            await self.release.wait()
            yield Chunk(delta="b", model="held", provider=self.provider, finish_reason="stop")
        finally:
            self.inside -= 1


async def drain(client: StreamingLLMClient) -> str:
    return "".join([chunk.delta async for chunk in client.stream(MESSAGES, LLMParams())])


async def test_no_more_calls_reach_a_provider_than_its_limit_and_the_rest_wait_their_turn() -> None:
    limits = ProviderLimits({"local": 2})
    model = HeldModel("local")
    client = limits.wrap(model)
    assert isinstance(client, LimitedStreamingLLM)
    calls = [asyncio.create_task(drain(client)) for _ in range(5)]
    for _ in range(2):
        await model.entered.get()
    await asyncio.sleep(0)  # let the other three reach the semaphore, where they must stay
    assert model.inside == 2
    assert limits.semaphore("local").locked()  # type: ignore[union-attr]
    model.release.set()
    assert await asyncio.gather(*calls) == ["ab"] * 5
    assert model.most_inside == 2


async def test_each_provider_has_its_own_slots_and_an_unlisted_one_is_not_limited() -> None:
    limits = ProviderLimits({"local": 1})
    local, other = HeldModel("local"), HeldModel("openai")
    calls = [asyncio.create_task(drain(limits.wrap(model))) for model in (local, local, other, other, other)]
    await local.entered.get()
    for _ in range(3):
        await other.entered.get()
    assert (local.inside, other.inside) == (1, 3)
    assert limits.wrap(other) is other
    local.release.set()
    other.release.set()
    await asyncio.gather(*calls)
    assert (local.most_inside, other.most_inside) == (1, 3)


def test_limits_come_from_the_environment_over_the_defaults() -> None:
    limits = ProviderLimits.from_env({"HARNESS_LLM_CONCURRENCY": "openai=3, *=2"})
    assert (limits.limit_of("local"), limits.limit_of("openai"), limits.limit_of("anthropic")) == (1, 3, 8)
    assert limits.limit_of("stub") == 2
    assert ProviderLimits.from_env({}).limit_of("stub") is None


@pytest.mark.parametrize("raw", ["local", "local=0", "=3", "local=two"])
def test_a_malformed_limit_is_a_config_error_naming_the_part(raw: str) -> None:
    with pytest.raises(ConfigError, match="HARNESS_LLM_CONCURRENCY") as error:
        parse_limits(f"openai=2,{raw}")
    assert repr(raw) in str(error.value)
