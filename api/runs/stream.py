"""A subscription to a run as SSE bytes: replay after the cursor, then the live tail, with heartbeats.

The stream ends after the run's terminal event. A cursor older than the replay window gets a
``snapshot`` event standing for the events that are gone, carrying the seq of the last of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.clock import format_timestamp
from api.runs.frames import HEARTBEAT, retry_frame
from contracts import TERMINAL_EVENT_TYPES, Snapshot

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from api.runs.records import StoredEvent
    from api.runs.registry import RunRegistry
    from contracts import RunSnapshot

__all__ = ("follow_run",)


async def follow_run(registry: RunRegistry, run_id: str, after: int) -> AsyncIterator[bytes]:
    settings = registry.settings
    yield retry_frame(settings.retry_ms)
    run = registry.live(run_id)
    if run is None:
        record = await registry.log.load_run(run_id)
        assert record is not None, "the route checks that the run exists"
        events, _ = await registry.log.read(run_id, after)
        frames, _ = _frames(registry, events, after, record.snapshot)
        yield frames
        return
    cursor = after
    with registry.subscribed(run):
        while True:
            events = run.events_after(cursor)
            if events:
                frames, cursor = _frames(registry, events, cursor, run.snapshot())
                yield frames
                if events[-1].type in TERMINAL_EVENT_TYPES:
                    return
                continue
            if cursor >= run.last_seq and (run.finished or (registry.closing and run.status != "running")):
                return
            if not await run.wait_for_change(settings.heartbeat_s):
                yield HEARTBEAT


def _frames(
    registry: RunRegistry, events: Sequence[StoredEvent], cursor: int, snapshot: RunSnapshot
) -> tuple[bytes, int]:
    """The frames of ``events`` after ``cursor``, with a snapshot wherever the seqs jump."""
    parts: list[bytes] = []
    for event in events:
        if event.seq != cursor + 1:
            parts.append(_snapshot_frame(registry, snapshot, event.seq - 1))
        parts.append(event.frame)
        cursor = event.seq
    return b"".join(parts), cursor


def _snapshot_frame(registry: RunRegistry, snapshot: RunSnapshot, seq: int) -> bytes:
    _, frame = registry.encoder.encode(
        Snapshot(gap=True, run=snapshot),
        run_id=snapshot.run_id,
        seq=seq,
        status=snapshot.status,
        at=format_timestamp(registry.clock.now_ns()),
    )
    return frame
