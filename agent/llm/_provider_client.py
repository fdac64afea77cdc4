"""What the HTTP adapters (``anthropic``, ``openai``) share around their own payloads and bodies.

Each adapter says how to ask (its payload) and how to read an answer (its body, its streamed events); the
connection, the model's name, a body that is not of the expected shape and a stream that is closed however
its reading ends are the same for all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from agent.llm.errors import ProviderUnavailable
from agent.llm.sse import sse_data

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from agent.llm.http_transport import OpenStream, ProviderHTTP
    from agent.llm.types import Chunk

__all__ = ("ProviderClient",)

_T = TypeVar("_T")


class ProviderClient:
    """One model on one provider's HTTP server: ``model``, ``aclose``, and the reading both adapters share."""

    def __init__(self, *, model: str, http: ProviderHTTP) -> None:
        self.provider = http.provider
        self._model = model
        self._http = http

    @property
    def model(self) -> str:
        return self._model

    async def aclose(self) -> None:
        await self._http.aclose()

    def _body(self, raw: Any, shape: type[_T]) -> _T:
        """``raw`` (a decoded JSON answer) as ``shape``; one of another shape means the provider is unusable."""
        try:
            return msgspec.convert(raw, shape)
        except msgspec.ValidationError as exc:
            raise ProviderUnavailable(f"{self.provider} answered with an unexpected body ({exc})") from None

    async def _chunks(
        self,
        opening: Callable[[], Awaitable[OpenStream]],
        read: Callable[[AsyncIterator[str]], AsyncIterator[Chunk]],
    ) -> AsyncIterator[Chunk]:
        """The chunks ``read`` makes of the SSE ``data`` of the stream ``opening()`` opens when the first chunk
        is asked for; the stream is closed however reading ends."""
        opened = await opening()
        try:
            async for chunk in read(sse_data(opened.lines())):
                yield chunk
        finally:
            await opened.aclose()
