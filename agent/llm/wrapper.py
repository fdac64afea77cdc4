"""The common part of a client that wraps another (the cache, the concurrency limit, the traces)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.llm.protocol import LLMClient

__all__ = ("LLMWrapper", "provider_of")


def provider_of(client: LLMClient) -> str:
    """The provider name a client gives itself (every client of ``agent.llm`` has one), else its class."""
    return str(getattr(client, "provider", type(client).__name__))


class LLMWrapper:
    """``inner``'s model and provider, and its connections closed when this is. Anything else the inner
    client offers (the model-based input check's ``screen``) is the inner client's, unchanged."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.provider = provider_of(inner)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (during unpickling or a failed __init__): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def model(self) -> str:
        return self.inner.model

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
