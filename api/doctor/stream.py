"""An SSE response read the way the doctor needs it: each frame with the moment it arrived."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import httpx

__all__ = ("TimedFrame", "timed_frames")

_DATA = b"data: "


class TimedFrame(msgspec.Struct, frozen=True):
    raw: bytes
    """The frame as sent, without the blank line that ends it."""
    arrived: float
    """``time.monotonic()`` when its last byte was read."""
    envelope: dict[str, Any] | None
    """Its ``data``, decoded; ``None`` for the ``retry`` frame and heartbeats."""

    @property
    def is_heartbeat(self) -> bool:
        return self.raw.startswith(b":")


async def timed_frames(response: httpx.Response) -> AsyncIterator[TimedFrame]:
    pending = b""
    async for chunk in response.aiter_bytes():  # decoded, as a browser reads a compressed stream
        arrived = time.monotonic()
        pending += chunk
        *frames, pending = pending.split(b"\n\n")
        for raw in frames:
            yield TimedFrame(raw, arrived, _envelope(raw))


def _envelope(raw: bytes) -> dict[str, Any] | None:
    for line in raw.split(b"\n"):
        if line.startswith(_DATA):
            value: dict[str, Any] = msgspec.json.decode(line[len(_DATA) :])
            return value
    return None
