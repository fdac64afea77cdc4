"""One provider's HTTP connection: retries while a call is being established, and safe error messages.

Every real adapter talks to its provider through a ``ProviderHTTP``. It owns one ``httpx.AsyncClient``
(connection pooling; closed by ``aclose``) and decides what each failure means:

- connection errors, timeouts, 408, 425, 429 and 5xx: ``ProviderUnavailable``, retried with exponential
  backoff (``Retry-After`` honoured up to the cap) until ``RetryPolicy.attempts`` calls have failed;
- any other 4xx: ``ProviderRejected``, never retried (a bad key stays bad);
- a transport error after a stream's headers arrived: ``ProviderStreamFailed``, never retried here,
  because part of the answer may already be on the user's screen.

The configured timeout bounds each read (in a stream: the silence between two chunks); a connection
attempt gets at most ``_CONNECT_TIMEOUT_S``. Messages carry the provider, the host and the provider's own
error message cut to a few hundred characters, with the key redacted: they end up in ``error`` events
that users see.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import httpx
import msgspec

from agent.llm.errors import ProviderRejected, ProviderStreamFailed, ProviderUnavailable

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

    from agent.llm.errors import LLMError

__all__ = ("OpenStream", "ProviderHTTP", "RetryPolicy", "redact")

_T = TypeVar("_T")
_RETRYABLE_STATUS = frozenset({408, 425, 429})
_DETAIL_CHARS = 300
_BODY_CHARS = 2000
_SECRET_LIKE = re.compile(r"\b(?:sk|gsk|xai)[-_][A-Za-z0-9_\-*.]{6,}")
"""Keys of OpenAI and Anthropic (``sk-``), Groq (``gsk_``) and xAI (``xai-``), masked ones included."""
_CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """How hard to try before a call has started: ``attempts`` calls in all, waiting ``base_delay_s``,
    then twice that, and so on, never more than ``max_delay_s``. ``sleep`` is injected by tests."""

    attempts: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep)

    def delay_s(self, failed_attempts: int, retry_after_s: float | None = None) -> float:
        backoff: float = self.base_delay_s * 2.0 ** (failed_attempts - 1)
        return min(max(backoff, retry_after_s or 0.0), self.max_delay_s)


class OpenStream:
    """A streamed response whose headers said yes; its lines, then ``aclose``."""

    def __init__(self, response: httpx.Response, provider: str) -> None:
        self._response = response
        self._provider = provider

    async def lines(self) -> AsyncIterator[str]:
        try:
            async for line in self._response.aiter_lines():
                yield line
        except httpx.HTTPError as exc:
            raise ProviderStreamFailed(
                f"{self._provider}'s stream broke off: {type(exc).__name__}: {_first_line(str(exc))}"
            ) from None

    async def aclose(self) -> None:
        await self._response.aclose()


class ProviderHTTP:
    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        timeout_s: float,
        secret: str | None = None,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.provider = provider
        self._base_url = base_url.rstrip("/")
        parts = urlsplit(self._base_url)
        self._where = parts.hostname + (f":{parts.port}" if parts.port else "") if parts.hostname else "?"
        self._secret = secret
        self._retry = retry or RetryPolicy()
        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, _CONNECT_TIMEOUT_S))
        self._client = httpx.AsyncClient(headers=dict(headers), timeout=timeout, transport=transport)

    async def post_json(self, path: str, payload: Mapping[str, Any]) -> Any:
        """The decoded JSON answer to a buffered call."""

        async def attempt() -> Any:
            response = await self._client.send(self._request(path, payload))
            self._check(response.status_code, response.headers, response.content)
            try:
                return msgspec.json.decode(response.content)
            except msgspec.DecodeError:
                raise ProviderUnavailable(f"{self._label} answered with a body that is not JSON") from None

        return await self._retrying(attempt)

    async def open_stream(self, path: str, payload: Mapping[str, Any]) -> OpenStream:
        """A streamed call whose status was a success; the caller reads its lines and closes it."""

        async def attempt() -> OpenStream:
            response = await self._client.send(self._request(path, payload), stream=True)
            if not response.is_success:
                try:
                    body = await response.aread()
                except httpx.HTTPError:
                    body = b""
                finally:
                    await response.aclose()
                self._check(response.status_code, response.headers, body)
            return OpenStream(response, self.provider)

        return await self._retrying(attempt)

    async def aclose(self) -> None:
        await self._client.aclose()

    @property
    def _label(self) -> str:
        return f"{self.provider} ({self._where})"

    def _request(self, path: str, payload: Mapping[str, Any]) -> httpx.Request:
        return self._client.build_request(
            "POST",
            self._base_url + path,
            content=msgspec.json.encode(payload),
            headers={"content-type": "application/json"},
        )

    async def _retrying(self, attempt: Callable[[], Awaitable[_T]]) -> _T:
        failed = 0
        while True:
            try:
                return await attempt()
            except httpx.UnsupportedProtocol:
                raise ProviderRejected(f"{self._label}: the base URL's scheme is not http or https") from None
            except httpx.TimeoutException as exc:
                error: LLMError = ProviderUnavailable(f"{self._label} timed out ({type(exc).__name__})")
                retry_after = None
            except httpx.TransportError as exc:
                error = ProviderUnavailable(f"{self._label} could not be reached: {_first_line(str(exc))}")
                retry_after = None
            except ProviderUnavailable as exc:
                error, retry_after = exc, exc.retry_after_s
            failed += 1
            if failed >= self._retry.attempts:
                raise error
            await self._retry.sleep(self._retry.delay_s(failed, retry_after))

    def _check(self, status: int, headers: httpx.Headers, body: bytes) -> None:
        if 200 <= status < 300:
            return
        message = f"{self._label} answered HTTP {status}: {self._detail(body)}"
        raw = redact(body[:_BODY_CHARS].decode(errors="replace"), self._secret)
        if status in _RETRYABLE_STATUS or status >= 500:
            retry_after = _retry_after_s(headers.get("retry-after"))
            raise ProviderUnavailable(message, status_code=status, retry_after_s=retry_after, body=raw)
        raise ProviderRejected(message, status_code=status, body=raw)

    def _detail(self, body: bytes) -> str:
        """The provider's own error message (OpenAI and Anthropic both nest it in ``error.message``)."""
        try:
            decoded = msgspec.json.decode(body)
        except msgspec.DecodeError:
            decoded = body.decode(errors="replace")
        if isinstance(decoded, dict):
            error = decoded.get("error", decoded)
            decoded = error.get("message", error) if isinstance(error, dict) else error
        return redact(_first_line(str(decoded)).strip() or "no details", self._secret)[:_DETAIL_CHARS]


def redact(text: str, secret: str | None) -> str:
    """``text`` without ``secret`` and without anything shaped like an API key (even a masked one)."""
    if secret:
        text = text.replace(secret, "[redacted]")
    return _SECRET_LIKE.sub("[redacted]", text)


def _retry_after_s(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: the backoff is used instead


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]
