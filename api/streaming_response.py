"""The response of every SSE stream: Litestar's ``Stream``, sent without a task group and without holding a chunk.

Litestar sends a stream from a second task inside an anyio task group while the request's task waits for
``http.disconnect``. A paused run's stream is held open for hours and sends a heartbeat every few seconds,
so what a held stream costs is what ten thousand of them cost: here the request's own task sends the body,
one small task waits for the client to leave and cancels it, and nothing keeps the last chunk sent (a replay
can be the run's whole history) alive while the next one is awaited. Nor does it keep what Litestar parsed
of the request (its headers decoded, the body, the query) or the response headers once they are sent.

With identity on, a stream is held (``api.auth.streams``) under the principal of its request, and ends,
its body closed cleanly without a terminal event, once that principal's token no longer stands. How long a
stream lasts at most (``HARNESS_STREAM_MAX_S``) is its run's follow's to say (``RunStreams.follow``): the body ends
when its iterator does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from litestar.response import Stream
from litestar.response.streaming import ASGIStreamingResponse
from litestar.types import Empty
from litestar.utils.scope.state import ScopeState

from api.auth.streams import hold_stream

if TYPE_CHECKING:
    from collections.abc import Iterable

    from litestar import Litestar, Request
    from litestar.background_tasks import BackgroundTask, BackgroundTasks
    from litestar.datastructures import Cookie
    from litestar.enums import MediaType
    from litestar.response.base import ASGIResponse
    from litestar.types import Receive, Scope, Send, TypeEncodersMap

__all__ = ("EventStream",)


class EventStream(Stream):
    def to_asgi_response(
        self,
        app: Litestar | None,
        request: Request[Any, Any, Any],
        *,
        background: BackgroundTask | BackgroundTasks | None = None,
        cookies: Iterable[Cookie] | None = None,
        encoded_headers: Iterable[tuple[bytes, bytes]] | None = None,
        headers: dict[str, str] | None = None,
        is_head_response: bool = False,
        media_type: MediaType | str | None = None,
        status_code: int | None = None,
        type_encoders: TypeEncodersMap | None = None,
    ) -> ASGIResponse:
        response = super().to_asgi_response(
            app,
            request,
            background=background,
            cookies=cookies,
            encoded_headers=encoded_headers,
            headers=headers,
            is_head_response=is_head_response,
            media_type=media_type,
            status_code=status_code,
            type_encoders=type_encoders,
        )
        return _ASGIEventStream.of(response)


class _ASGIEventStream(ASGIStreamingResponse):
    __slots__ = ()

    @classmethod
    def of(cls, response: ASGIResponse) -> _ASGIEventStream:
        """The same response (status, headers, cookies, background, iterator), sent the way described above."""
        assert isinstance(response, ASGIStreamingResponse), "Stream.to_asgi_response builds a streaming response"
        response.__class__ = cls
        return response  # type: ignore[return-value]  # its class was just set

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        _forget_parsed_request(scope)
        await self.start_response(send)
        if self.is_head_response:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            await self._send_events(scope, send, receive)
        await self.after_response()

    async def start_response(self, send: Send) -> None:
        await super().start_response(send)
        self.headers.headers.clear()

    async def _send_events(self, scope: Scope, send: Send, receive: Receive) -> None:
        """The body, until the iterator ends, the client leaves, or (identity on) the token it was opened with
        no longer stands: then the body ends cleanly, without a terminal event, and the run goes on.

        The last two cancel this task once, and a library may swallow that: Python 3.11's ``asyncio.wait_for``,
        which redis-py writes every command through, returns its result when the cancellation lands as the
        command completes. Every chunk sent looks again, so a stream whose cancellation was lost ends with its
        next chunk (a heartbeat period at most) rather than when the run does."""
        sending = asyncio.current_task()
        assert sending is not None
        ended = revoked = False

        def client_left(listener: asyncio.Future[None]) -> None:
            if not (ended or listener.cancelled()):
                sending.cancel()

        listener = asyncio.ensure_future(_until_disconnect(receive))
        listener.add_done_callback(client_left)
        held = hold_stream(scope)
        try:
            async for chunk in self.iterator:
                body = chunk if isinstance(chunk, bytes) else chunk.encode(self.encoding)
                del chunk
                await send({"type": "http.response.body", "body": body, "more_body": True})
                del body
                if listener.done() or (held is not None and held.ended):
                    raise asyncio.CancelledError  # its cancellation was swallowed on the way (_send_events)
            if held is not None:
                held.release()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if held is not None and held.ended:
                revoked = True
            elif not listener.done() or listener.cancelled():
                raise
            sending.uncancel()  # the client left, or the token was revoked: that ends this stream, not the task
        finally:
            ended = True
            if held is not None:
                held.release()
            listener.cancel()
            if isinstance(self.iterator, AsyncGenerator):
                await self.iterator.aclose()  # its cleanup (the follower, the stream slot) runs now, not at GC
        if revoked:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


def _forget_parsed_request(scope: Scope) -> None:
    """The handler has its arguments: the stream needs nothing more of what Litestar parsed of the request."""
    state = ScopeState.from_scope(scope)
    state.headers = state.body = state.json = state.parsed_query = state.url = state.base_url = Empty
    state.cookies = state.accept = state.content_type = state.dependency_cache = Empty


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
