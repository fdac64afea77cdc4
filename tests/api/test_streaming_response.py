"""An SSE response ends when its client leaves, even when the cancellation that ends it is lost on the way.

Python 3.11's ``asyncio.wait_for``, which redis-py writes every command through, returns its result when a
cancellation lands as the command completes: a stream following a run on the shared stores then goes on as if
its client were there. Here a body swallows its first cancellation the same way, driven through Litestar as
uvicorn drives it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from litestar import Litestar, get

from api.streaming_response import EventStream

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from litestar.types import Message


class Body:
    """A stream's body: a first chunk, then a wait whose cancellation it swallows, a heartbeat, another wait."""

    def __init__(self) -> None:
        self.swallowed = False
        self.closed = False

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            yield b"data: first\n\n"
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.swallowed = True
            yield b": heartbeat\n\n"
            await asyncio.sleep(3600)
            yield b"data: never\n\n"
        finally:
            self.closed = True


async def test_a_stream_whose_cancellation_is_swallowed_ends_with_its_next_chunk() -> None:
    body = Body()

    @get("/events", sync_to_thread=False)
    def events() -> EventStream:
        return EventStream(body.chunks(), media_type="text/event-stream")

    app = Litestar([events])
    left = asyncio.Event()
    sent: list[bytes] = []

    async def receive() -> Message:
        if not sent:
            return {"type": "http.request", "body": b"", "more_body": False}
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body":
            sent.append(message["body"])
            if message["body"] == b"data: first\n\n":
                left.set()  # the client leaves once it has the first event

    scope: Any = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/events",
        "raw_path": b"/events",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver.local"), (b"accept", b"text/event-stream")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver.local", 80),
        "state": {},
    }
    sending = asyncio.create_task(app(scope, receive, send))
    done, _ = await asyncio.wait({sending}, timeout=10)
    if not done:
        sending.cancel()

    assert done, "the stream went on after its client left"
    assert sending.exception() is None
    assert body.swallowed, "the body's wait was cancelled when the client left"
    assert sent == [b"data: first\n\n", b": heartbeat\n\n"], "it ends with the chunk after the lost cancellation"
    assert body.closed, "the body's cleanup ran"
    assert sending.cancelling() == 0, "the cancellation that ended the stream does not outlive it"
