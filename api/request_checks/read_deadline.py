"""How long a client may take to send a request: its headers, then its body, each within
``HARNESS_REQUEST_READ_TIMEOUT_S`` (default 10 s). A slower one gets a ``408`` problem and its connection closes.

Neither uvicorn parser bounds either: a client that sends a header or a body byte now and then held a connection,
and for a body a request task, for as long as it liked (a review held one open for over 20 s with no answer).

- The headers, at the transport: ``with_header_deadline`` derives uvicorn's HTTP protocol class (h11 or
  httptools, whichever the server chose) so that a connection gets the deadline when it opens and after each
  response (the next request's headers). When it passes with part of a request in and none of it at the app, the
  408 is written on the socket and the connection closed; a connection that sent nothing at all is closed; one
  idle after a response is left to uvicorn's keep-alive timeout (a pooled client would read an unasked 408 as
  the answer to its next request).
- The body, in the app: the routes that read one (``takes_body``) read it through ``deadline_receive``, counted
  from the moment their headers were read; ``RequestTimeout`` is answered as every problem is, with
  ``Connection: close`` (what is left of the body is never read).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgspec

from api.exceptions import RequestTimeout
from contracts import PROBLEM_MEDIA_TYPE, Problem, problem_type

if TYPE_CHECKING:
    from litestar.types import Receive, ReceiveMessage

__all__ = ("deadline_receive", "with_header_deadline")

_HEADERS_LATE = Problem(
    type=problem_type(RequestTimeout.code),
    title=RequestTimeout.title,
    status=RequestTimeout.status_code,
    code=RequestTimeout.code,
    detail="The request's headers did not arrive in time; the connection is closed.",
)


def deadline_receive(receive: Receive, timeout_s: float) -> Receive:
    """``receive`` whose body messages must all have come within ``timeout_s`` of now; ``RequestTimeout`` else."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s

    async def receive_in_time() -> ReceiveMessage:
        remaining = deadline - loop.time()
        try:
            async with asyncio.timeout(max(remaining, 0)):
                return await receive()
        except TimeoutError:
            raise RequestTimeout(
                f"The request's body did not arrive within {timeout_s:g} s; send it at once, or a smaller one."
            ) from None

    return receive_in_time


def with_header_deadline(protocol_class: type[Any], timeout_s: float) -> type[Any]:
    """uvicorn's HTTP ``protocol_class``, giving each request of a connection ``timeout_s`` to send its headers."""
    response = _response(_HEADERS_LATE)

    class HeaderDeadline(protocol_class):  # type: ignore[misc]
        _header_timer: asyncio.TimerHandle | None = None
        _answered = False
        """Whether a response of the connection is complete (its next request may take the keep-alive's time)."""
        _sending = False
        """Whether bytes of a request have come since the deadline was set."""

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            self._sending = True
            super().data_received(data)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            self._answered = True
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._sending = False
            if not self.transport.is_closing():
                self._header_timer = self.loop.call_later(timeout_s, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                return  # this request's headers came in time: the app has it
            if self.transport.is_closing():
                return
            if self._sending:
                self.transport.write(response)
                self.transport.close()
            elif not self._answered:
                self.transport.close()  # connected and sent nothing at all
            # else: idle between requests, which uvicorn's keep-alive timeout ends

    HeaderDeadline.__name__ = HeaderDeadline.__qualname__ = protocol_class.__name__
    return HeaderDeadline


def _response(problem: Problem) -> bytes:
    body = msgspec.json.encode(problem)
    head = (
        f"HTTP/1.1 {problem.status} Request Timeout\r\ncontent-type: {PROBLEM_MEDIA_TYPE}\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body
