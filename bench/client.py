"""A minimal HTTP/1.1 client on raw asyncio sockets, cheap enough to hold ten thousand SSE streams.

Every request says ``Connection: close``, so a response ends when the server closes the connection and the
body can be read as it comes without decoding the chunked framing: the benchmarks only count and time SSE
markers (``event: token_delta``, ``: hb``) that never straddle two chunks, since every ASGI send is one chunk.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

__all__ = ("HEARTBEAT", "TOKEN_DELTA", "Response", "StreamCount", "count_until_closed", "open_stream")

TOKEN_DELTA = b"event: token_delta"
HEARTBEAT = b": hb\n"
_READ = 1 << 16


@dataclass
class Response:
    """A response whose head has been read; ``reader`` goes on with the body."""

    status: int
    headers: dict[str, str]
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    sent_at: float
    """``time.perf_counter()`` just before the request was written (after the connection was made)."""

    def close(self) -> None:
        self.writer.close()


@dataclass
class StreamCount:
    """How often a marker came in a body, and when (``perf_counter``) it first did."""

    count: int = 0
    first_at: float | None = None
    closed_at: float = 0.0
    arrivals: list[float] = field(default_factory=list)


async def open_stream(
    port: int, method: str, path: str, *, body: bytes = b"", accept: str = "text/event-stream"
) -> Response:
    """Send a request to ``127.0.0.1:port`` and read the head of its response."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=_READ)
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: {accept}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sent_at = time.perf_counter()
    writer.write(head.encode() + body)
    raw = await reader.readuntil(b"\r\n\r\n")
    status_line, *lines = raw.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return Response(int(status_line.split()[1]), headers, reader, writer, sent_at)


async def count_until_closed(
    response: Response, marker: bytes, *, record: bool = False, into: StreamCount | None = None
) -> StreamCount:
    """Count ``marker`` in the body until the server closes (into ``into``, which can be read meanwhile);
    with ``record``, the arrival time of each one (heartbeats come one at a time)."""
    found = into or StreamCount()
    tail = b""
    keep = len(marker) - 1
    try:
        while chunk := await response.reader.read(_READ):
            data = tail + chunk
            seen = data.count(marker)
            if seen:
                now = time.perf_counter()
                if found.first_at is None:
                    found.first_at = now
                if record:
                    found.arrivals.extend([now] * seen)
                found.count += seen
            tail = data[-keep:]
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        found.closed_at = time.perf_counter()
        response.close()
    return found
