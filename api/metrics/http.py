"""``HttpMetrics``: every answered request counted by method, route template (``/runs/{run_id}``, never the raw
path) and status; the event streams open now; and the 429 refusals by the limit that refused.

It is the outermost middleware, so it sees what the inner ones refuse (a foreign ``Host``, a missing token, the
turn rate limit) as the exceptions they raise, with the status the app's handlers give them (a store an inner
middleware uses that fails is also a store error), and what the handlers answer as the response they send. A
request no route matches never reaches route middleware in Litestar, so it is not counted; status 0 is a request
whose client left before any answer started.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException

from agent.stores import is_store_failure

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Message, Receive, Scope, Send

    from api.metrics.instruments import Instruments

__all__ = ("HttpMetrics",)

_EVENT_STREAM = b"text/event-stream"


class HttpMetrics:
    def __init__(self, app: ASGIApp, instruments: Instruments) -> None:
        self._app = app
        self._m = instruments

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self._app(scope, receive, send)
            return
        status = 0
        streaming = False
        refused_by = "streams_per_subject"  # the one 429 a handler answers (TooManyStreams)

        async def counted(message: Message) -> None:
            nonlocal status, streaming
            if message["type"] == "http.response.start":
                status = message["status"]
                streaming = any(
                    name == b"content-type" and value.startswith(_EVENT_STREAM) for name, value in message["headers"]
                )
                if streaming:
                    self._m.streams_open.inc()
            await send(message)

        try:
            await self._app(scope, receive, counted)
        except Exception as exc:
            status = _status_of(exc)
            if isinstance(exc, TooManyRequestsException):
                refused_by = "turns_per_minute"
            elif status == 503:  # a store an inner middleware uses (the shared rate limit's Redis) failed
                self._m.store_errors.labels(_store_of(exc), "middleware").inc()
            raise
        finally:
            if streaming:
                self._m.streams_open.dec()
            if status == 429:
                self._m.rate_limited.labels(refused_by).inc()
            route = scope.get("path_template") or "unmatched"
            self._m.http_requests.labels(scope["method"], route, str(status)).inc()


def _status_of(exc: Exception) -> int:
    """The status the app's exception handlers answer ``exc`` with (api/exception_handlers.py)."""
    code = getattr(exc, "status_code", None)
    if isinstance(code, int):
        return code
    return 503 if is_store_failure(exc) else 500


def _store_of(exc: Exception) -> str:
    module = type(exc).__module__
    return "redis" if module.startswith("redis") else "postgres" if module.startswith("psycopg") else "other"
