"""What the event log stores: encoded events and the record of each run."""

from __future__ import annotations

import msgspec

from contracts import RunSnapshot

__all__ = ("RunRecord", "StoredEvent", "trim_point")


class StoredEvent(msgspec.Struct, frozen=True):
    seq: int
    type: str
    frame: bytes
    """The whole SSE frame, encoded once; a replay sends these very bytes."""


class RunRecord(msgspec.Struct, kw_only=True):
    snapshot: RunSnapshot
    paused_at_ns: int | None = None
    """When the run paused for its human, to report ``human_wait_ms`` after the resume."""
    human_wait_ms: float | None = None


def trim_point(last_seq: int, window: int) -> int:
    """The highest seq a log with this replay ``window`` no longer keeps (1 when nothing is trimmed).

    The topology (seq 1) is always kept, so a client joining late can still draw the graph.
    """
    return max(1, last_seq - window)
