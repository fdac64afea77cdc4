"""At most N calls in flight per provider, however many cases an eval runs at once.

Cases run concurrently so that a slow model does not serialise the eval, but a provider has its own limit
(the bundled llama.cpp server answers one request at a time; a hosted API rate-limits): one semaphore per
provider name bounds the calls that reach it. ``HARNESS_LLM_CONCURRENCY`` sets the limits, as
``local=1,openai=8``; ``*=N`` sets every provider not named.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent.config import ConfigError
from agent.llm.protocol import StreamingLLMClient
from agent.llm.streaming import stream_answer
from agent.llm.wrapper import LLMWrapper, provider_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence

    from agent.llm.protocol import LLMClient
    from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

__all__ = (
    "CONCURRENCY_VARIABLE",
    "DEFAULT_PROVIDER_LIMITS",
    "LimitedLLM",
    "LimitedStreamingLLM",
    "ProviderLimits",
    "parse_limits",
)

CONCURRENCY_VARIABLE = "HARNESS_LLM_CONCURRENCY"
DEFAULT_PROVIDER_LIMITS = {"local": 1, "openai": 8, "anthropic": 8}
"""The bundled llama.cpp server serves one request at a time; hosted APIs take a few at once. The stub,
which costs nothing, is not limited."""


def parse_limits(raw: str) -> dict[str, int]:
    """``local=1,openai=8,*=4`` as a mapping; an error names the part that is wrong."""
    limits: dict[str, int] = {}
    for part in (piece.strip() for piece in raw.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip().isdigit() or int(value) < 1:
            raise ConfigError(
                f"{CONCURRENCY_VARIABLE}: {part!r} is not provider=N with N at least 1 (e.g. local=1,openai=8)"
            )
        limits[name.strip()] = int(value)
    return limits


class ProviderLimits:
    """One semaphore per provider name, made on first use (in the event loop that uses it)."""

    def __init__(self, limits: Mapping[str, int] | None = None) -> None:
        self.limits = dict(DEFAULT_PROVIDER_LIMITS if limits is None else limits)
        self._semaphores: dict[str, asyncio.Semaphore] = {}

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> ProviderLimits:
        return cls({**DEFAULT_PROVIDER_LIMITS, **parse_limits(environ.get(CONCURRENCY_VARIABLE, ""))})

    def limit_of(self, provider: str) -> int | None:
        return self.limits.get(provider, self.limits.get("*"))

    def semaphore(self, provider: str) -> asyncio.Semaphore | None:
        limit = self.limit_of(provider)
        if limit is None:
            return None
        if provider not in self._semaphores:
            self._semaphores[provider] = asyncio.Semaphore(limit)
        return self._semaphores[provider]

    def wrap(self, client: LLMClient) -> LLMClient:
        """``client`` under its provider's limit (unchanged when its provider has none)."""
        semaphore = self.semaphore(provider_of(client))
        if semaphore is None:
            return client
        if isinstance(client, StreamingLLMClient):
            return LimitedStreamingLLM(client, semaphore)
        return LimitedLLM(client, semaphore)


class LimitedLLM(LLMWrapper):
    def __init__(self, inner: LLMClient, semaphore: asyncio.Semaphore) -> None:
        super().__init__(inner)
        self.semaphore = semaphore

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        async with self.semaphore:
            return await self.inner.complete(messages, params)


class LimitedStreamingLLM(LimitedLLM):
    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        """The slot is held for the whole stream: the server is busy until its last token."""
        async with self.semaphore:
            async for chunk in stream_answer(self.inner, messages, params):
                yield chunk
