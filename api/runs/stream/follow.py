"""A subscription to a run as SSE bytes: replay after the cursor, then the live tail, with heartbeats.

The events come from the run's memory when it executes here and from the log otherwise (it waits for a
human, runs on another instance, or the cursor is older than what memory holds). The stream ends after
the run's terminal event. A cursor older than the replay window gets a ``snapshot`` event standing for
the events that are gone, carrying the seq of the last of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.clock import format_timestamp
from api.runs.log.commit_window import GATHER_S
from api.runs.log.records import FINISHED
from api.runs.stream.frames import HEARTBEAT, retry_frame
from contracts import TERMINAL_EVENT_TYPES, Snapshot

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from api.auth import Principal
    from api.runs.log.records import StoredEvent
    from api.runs.registry import RunRegistry

__all__ = ("StreamSlot", "follow_run")


async def follow_run(registry: RunRegistry, run_id: str, after: int) -> AsyncIterator[bytes]:
    heartbeat_s = registry.settings.heartbeat_s
    # The first frame goes out with the first events, one write instead of two, or alone when none come soon
    retry = retry_frame(registry.settings.retry_ms)
    cursor = after
    looked_again = False
    with registry.subscribed(run_id) as follower:
        while True:
            run = registry.live(run_id)
            events = run.events_after(cursor) if run is not None else None
            if events is None:
                events, _ = await registry.log.read(run_id, cursor)
            if events:
                frames, cursor = await _frames(registry, run_id, events, cursor)
                ended = events[-1].type in TERMINAL_EVENT_TYPES
                del events  # a stream held open on a paused run must not keep its replay alive
                if retry:
                    frames, retry = retry + frames, b""
                yield frames
                del frames
                if ended:
                    return
                continue
            if run is None and (registry.closing or await _finished(registry, run_id)):
                if looked_again:
                    if retry:
                        yield retry
                    return
                # the run ended between the read and now: its terminal event is committed, read it
                looked_again = True
                continue
            if retry:
                if not await follower.wait(cursor, GATHER_S):
                    yield retry
                    retry = b""
                continue
            while not await follower.wait(cursor, heartbeat_s):
                yield HEARTBEAT


class StreamSlot:
    """One of a subject's open-stream slots (none for the one user of a service without identity)."""

    def __init__(self, registry: RunRegistry, slot: str | None) -> None:
        self._registry = registry
        self._slot = slot

    @classmethod
    async def take(cls, registry: RunRegistry, principal: Principal) -> StreamSlot:
        """A slot for one more stream of ``principal``; ``TooManyStreams`` (429) when none is free."""
        if principal.subject is None:
            return cls(registry, None)
        return cls(registry, await registry.streams.acquire(principal.subject))

    async def release(self) -> None:
        if self._slot is not None:
            slot, self._slot = self._slot, None
            await self._registry.streams.release(slot)

    def hold(self, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """``body``, giving the slot back when it ends."""
        if self._slot is None:
            return body
        return self._held(body)

    async def _held(self, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        try:
            async for chunk in body:
                yield chunk
                del chunk  # not kept alive while the next one is awaited
        finally:
            await self.release()


async def _finished(registry: RunRegistry, run_id: str) -> bool:
    record = await registry.log.load_run(run_id)
    return record is None or record.snapshot.status in FINISHED


async def _frames(registry: RunRegistry, run_id: str, events: Sequence[StoredEvent], cursor: int) -> tuple[bytes, int]:
    """The frames of ``events`` after ``cursor``, with a snapshot wherever the seqs jump."""
    parts: list[bytes] = []
    for event in events:
        if event.seq != cursor + 1:
            parts.append(await _snapshot_frame(registry, run_id, event.seq - 1))
        parts.append(event.frame)
        cursor = event.seq
    return b"".join(parts), cursor


async def _snapshot_frame(registry: RunRegistry, run_id: str, seq: int) -> bytes:
    run = registry.live(run_id)
    if run is not None:
        snapshot = run.snapshot()
    else:
        record = await registry.log.load_run(run_id)
        assert record is not None, "a run with events has a record"
        snapshot = record.snapshot
    _, frame = registry.encoder.encode(
        Snapshot(gap=True, run=snapshot),
        run_id=run_id,
        seq=seq,
        status=snapshot.status,
        at=format_timestamp(registry.clock.now_ns()),
    )
    return frame
