"""Thousands of SSE streams held open from one client process, each read by a task of its own.

Streams are opened ``concurrency`` at a time (the server's accept queue and the client's core are the
limits, not the benchmark's subject); every stream's body is read as it comes so that no buffer fills,
and the heartbeat arrivals of a sample of them are recorded.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bench.client import HEARTBEAT, Response, StreamCount, count_until_closed, open_stream

__all__ = ("LABELS", "HeldFigures", "HeldStreams", "hold_streams")

LABELS = {"raw": "raw ASGI (baseline)", "harness": "harness"}


@dataclass(frozen=True, kw_only=True)
class HeldFigures:
    """What a server spent holding ``streams`` open: memory beyond its idle figure, CPU over the hold."""

    app: str
    streams: int
    idle_kb: int
    streams_kb: int
    cpu_s: float
    hold_s: float

    @property
    def kb_per_stream(self) -> float:
        return (self.streams_kb - self.idle_kb) / self.streams

    @property
    def cpu_pct(self) -> float:
        return 100 * self.cpu_s / self.hold_s


@dataclass
class HeldStreams:
    responses: list[Response]
    readers: list[asyncio.Task[StreamCount]]
    sampled: list[StreamCount]
    """What the sampled streams have received so far, their heartbeat arrivals recorded."""

    def __len__(self) -> int:
        return len(self.responses)

    async def close(self) -> list[StreamCount]:
        """Close every stream; what each one received."""
        for response in self.responses:
            response.close()
        return list(await asyncio.gather(*self.readers))


async def hold_streams(
    port: int, requests: list[tuple[str, str, bytes]], *, concurrency: int = 64, samples: int = 0
) -> HeldStreams:
    """Open a stream for each ``(method, path, body)``; the heartbeats of ``samples`` of them, spread evenly,
    are recorded. Raises when a stream does not answer 200."""
    step = max(1, len(requests) // samples) if samples else 0
    sampled = set(range(0, len(requests), step)[:samples]) if samples else set()
    opened: list[tuple[Response, asyncio.Task[StreamCount]] | None] = [None] * len(requests)
    recorded = {index: StreamCount() for index in sampled}
    queue = iter(enumerate(requests))

    async def opener() -> None:
        for index, (method, path, body) in queue:
            response = await open_stream(port, method, path, body=body)
            if response.status != 200:
                response.close()
                raise RuntimeError(f"{method} {path} answered {response.status}")
            into = recorded.get(index)
            reader = asyncio.ensure_future(count_until_closed(response, HEARTBEAT, record=into is not None, into=into))
            opened[index] = (response, reader)

    try:
        await asyncio.gather(*(opener() for _ in range(concurrency)))
    except BaseException:
        for pair in opened:
            if pair is not None:
                pair[0].close()
        raise
    pairs = [pair for pair in opened if pair is not None]
    return HeldStreams([response for response, _ in pairs], [reader for _, reader in pairs], list(recorded.values()))
