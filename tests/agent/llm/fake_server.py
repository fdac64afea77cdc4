"""A fake model provider: a real HTTP/1.1 server on loopback that plays scripted replies.

It speaks just enough HTTP for httpx (keep-alive, ``Content-Length`` bodies, chunked SSE streams) and can
misbehave on purpose: error statuses, a connection dropped mid-stream, a malformed chunk. Each request is
recorded, so tests can check what the adapters sent. The replies are either a list (one per request, the
last one repeated) or a function of the request.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import TracebackType

__all__ = (
    "FakeProviderServer",
    "Received",
    "Reply",
    "anthropic_stream",
    "json_reply",
    "openai_chunk",
    "openai_stream",
)

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests", 500: "Server Error"}


@dataclass(frozen=True, kw_only=True)
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    """A whole body, sent with ``Content-Length`` (when ``events`` is None)."""
    events: Sequence[bytes] | None = None
    """SSE events, each sent as one chunk of a chunked body and flushed."""
    drop_after: int | None = None
    """Abort the connection after this many events, without ending the body."""
    pause_s: float = 0.0
    """Pause before each event."""


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return msgspec.json.decode(self.body)


class FakeProviderServer:
    def __init__(self, replies: Sequence[Reply] | Callable[[Received], Reply], *, port: int = 0) -> None:
        self._replies = replies
        self.port = port
        self.requests: list[Received] = []
        self.first_event_ns: list[int] = []
        """``time.perf_counter_ns()`` just before the first event of each stream was written."""
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.StreamWriter] = set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in self._connections:
                writer.transport.abort()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> FakeProviderServer:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    def _reply_for(self, request: Received) -> Reply:
        if callable(self._replies):
            return self._replies(request)
        index = min(len(self.requests) - 1, len(self._replies) - 1)
        return self._replies[index]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.add(writer)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                self.requests.append(request)
                if not await self._answer(self._reply_for(request), writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._connections.discard(writer)
            writer.close()

    async def _answer(self, reply: Reply, writer: asyncio.StreamWriter) -> bool:
        """Write ``reply``; False when the connection was dropped on purpose."""
        head = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
        headers = dict(reply.headers)
        if reply.events is None:
            headers.setdefault("content-type", "application/json")
            headers["content-length"] = str(len(reply.body))
        else:
            headers.setdefault("content-type", "text/event-stream")
            headers["transfer-encoding"] = "chunked"
        head += [f"{name}: {value}" for name, value in headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        if reply.events is None:
            writer.write(reply.body)
            await writer.drain()
            return True
        await writer.drain()
        for index, event in enumerate(reply.events):
            if index == reply.drop_after:
                writer.transport.abort()
                return False
            if reply.pause_s:
                await asyncio.sleep(reply.pause_s)
            if index == 0:
                self.first_event_ns.append(time.perf_counter_ns())
            writer.write(b"%x\r\n%s\r\n" % (len(event), event))
            await writer.drain()
        if reply.drop_after is not None and reply.drop_after >= len(reply.events):
            writer.transport.abort()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


async def _read_request(reader: asyncio.StreamReader) -> Received | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Received(method, path, headers, body)


def json_reply(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, body=msgspec.json.encode(value), headers=headers or {})


def openai_chunk(content: str | None = None, finish_reason: str | None = None, **extra: Any) -> bytes:
    delta = {} if content is None else {"content": content}
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return b"data: " + msgspec.json.encode({"object": "chat.completion.chunk", "choices": [choice], **extra}) + b"\n\n"


def openai_stream(
    pieces: Sequence[str], *, usage: tuple[int, int] | None = (21, 7), finish_reason: str = "stop", done: bool = True
) -> list[bytes]:
    """The events of a streamed completion the way OpenAI sends them (a role delta first)."""
    role = b'data: {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]}\n\n'
    events = [role, *(openai_chunk(piece) for piece in pieces), openai_chunk(finish_reason=finish_reason)]
    if usage is not None:
        counts = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
        events.append(b"data: " + msgspec.json.encode({"choices": [], "usage": counts}) + b"\n\n")
    if done:
        events.append(b"data: [DONE]\n\n")
    return events


def anthropic_stream(pieces: Sequence[str], *, usage: tuple[int, int] = (25, 9), stop: str = "end_turn") -> list[bytes]:
    """The typed events of a streamed Messages answer."""

    def event(kind: str, data: dict[str, Any]) -> bytes:
        return f"event: {kind}\n".encode() + b"data: " + msgspec.json.encode({"type": kind, **data}) + b"\n\n"

    message = {
        "id": "msg_1",
        "role": "assistant",
        "content": [],
        "usage": {"input_tokens": usage[0], "output_tokens": 1},
    }
    return [
        event("message_start", {"message": message}),
        event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        event("ping", {}),
        *(event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": p}}) for p in pieces),
        event("content_block_stop", {"index": 0}),
        event("message_delta", {"delta": {"stop_reason": stop}, "usage": {"output_tokens": usage[1]}}),
        event("message_stop", {}),
    ]
