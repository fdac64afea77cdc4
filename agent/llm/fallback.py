"""A cascade of providers (``HARNESS_LLM_PROVIDER=openai,anthropic``): the next one answers when one fails.

A buffered call falls through on any ``LLMError``. A stream falls through only while nothing of it has
been yielded: once a chunk is on its way to the user, switching models would splice two different
answers into one text, so a failure after that surfaces as ``ProviderStreamFailed`` (retryable: the user
can ask again, and the cascade starts from the first provider).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.llm.errors import LLMError, ProviderRejected, ProviderStreamFailed, ProviderUnavailable
from agent.llm.streaming import stream_answer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.protocol import LLMClient
    from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

__all__ = ("FallbackLLM",)


class FallbackLLM:
    """The clients in order of preference; ``model`` is the first one's, each chunk names its own."""

    def __init__(self, clients: Sequence[LLMClient]) -> None:
        if not clients:
            raise ValueError("a fallback cascade needs at least one client")
        self.clients = tuple(clients)

    @property
    def model(self) -> str:
        return self.clients[0].model

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        failures: list[LLMError] = []
        for client in self.clients:
            try:
                return await client.complete(messages, params)
            except LLMError as exc:
                failures.append(exc)
        raise _all_failed(failures)

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        failures: list[LLMError] = []
        for client in self.clients:
            started = False
            try:
                async for chunk in stream_answer(client, messages, params):
                    started = True
                    yield chunk
                return
            except LLMError as exc:
                if started:
                    raise ProviderStreamFailed(
                        f"the answer broke off after it had started, so no other provider takes over: {exc}"
                    ) from exc
                failures.append(exc)
        raise _all_failed(failures)

    async def aclose(self) -> None:
        for client in self.clients:
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()


def _all_failed(failures: Sequence[LLMError]) -> LLMError:
    """One error for a cascade that failed everywhere: retryable unless every provider rejected the call."""
    message = "every provider failed: " + "; ".join(str(exc) for exc in failures)
    if all(isinstance(exc, ProviderRejected) for exc in failures):
        return ProviderRejected(message)
    return ProviderUnavailable(message)
