"""Following a run: replay after the cursor, then the live tail, with heartbeats, as one protocol's bytes.

The events come from the run's memory when it executes here and from the log otherwise (it waits for a
human, runs on another instance, or the cursor is older than what memory holds). A cursor older than the
replay window gets a ``snapshot`` event standing for the events that are gone, carrying the seq of the last
of them. What the events become on the wire is the ``StreamEncoder``'s: the service's own envelopes
(``EnvelopeStream``), AG-UI, ...; the stream ends when the encoder says the events it was sent finish it, or, with
``HARNESS_STREAM_MAX_S``, once it has lasted that long (at its next chunk: a heartbeat period at most later). What
follows the follow decides what that end means: an event stream's body is closed without a terminal event (the
client reconnects with ``Last-Event-ID``), a JSON wait answers the run as far as it came.
"""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Protocol

from agent import format_timestamp
from api.runs.log.commit_window import GATHER_S
from api.runs.log.records import FINISHED, StoredEvent
from api.runs.stream.envelopes import EnvelopeStream
from api.runs.stream.frames import retry_frame
from contracts import Snapshot

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Sequence

    from agent import Clock
    from api.runs.log.records import RunRecord
    from api.runs.stream.feed import RunFeed
    from api.runs.stream.frames import EnvelopeEncoder
    from contracts import RunSnapshot

__all__ = ("LiveEvents", "ReplaySource", "RunStreams", "StreamEncoder")


class StreamEncoder(Protocol):
    """One protocol's view of a run's events (a stream keeps one; it may hold the protocol's state)."""

    opening: bytes
    """Sent with the first events (one write), or alone when none come at once; ``b""`` for nothing."""
    heartbeat: bytes
    """Sent after each silent heartbeat period."""

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        """The bytes of ``events``, the run's next committed events in order (a ``snapshot`` stands for a gap);
        each holds its envelope's JSON, which the encoder decodes or frames as its protocol needs."""
        ...

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        """Whether the stream ends with ``events``, the ones just encoded."""
        ...


class LiveEvents(Protocol):
    """A run executing on this instance, as a stream reads it."""

    def events_after(self, cursor: int) -> list[StoredEvent] | None:
        """The committed events after ``cursor``; None when some of them are no longer held in memory."""
        ...

    def current_snapshot(self) -> RunSnapshot: ...


class ReplaySource(Protocol):
    """The part of the event log a stream reads."""

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]: ...

    async def load_run(self, run_id: str) -> RunRecord | None: ...


class RunStreams:
    """Every stream of this instance follows runs through here."""

    def __init__(
        self,
        *,
        log: ReplaySource,
        feed: RunFeed,
        live: Callable[[str], LiveEvents | None],
        closing: Callable[[], bool],
        envelopes: EnvelopeEncoder,
        clock: Clock,
        heartbeat_s: float,
        retry_ms: int,
        lasts_s: float | None = None,
    ) -> None:
        self._log = log
        self._feed = feed
        self._live = live
        self._closing = closing
        self._envelopes = envelopes
        self._clock = clock
        self._heartbeat_s = heartbeat_s
        self._lasts_s = lasts_s
        self._opening = retry_frame(retry_ms)

    def envelopes(self, run_id: str) -> EnvelopeStream:
        """The service's own encoding of a stream of ``run_id`` (``/chat``, ``/runs/{id}/events``)."""
        return EnvelopeStream(run_id, self._opening)

    async def committed(self, run_id: str) -> list[StoredEvent]:
        """The run's committed events so far, from the first (some gone to the replay window are missing), from
        where a stream reads them: its memory when it executes here, else the log."""
        run = self._live(run_id)
        held = run.events_after(0) if run is not None else None
        if held is None:
            held, _ = await self._log.read(run_id, 0)
        return held

    async def follow(self, run_id: str, after: int, encoder: StreamEncoder) -> AsyncIterator[bytes]:
        """The run's events with a greater seq than ``after``, as ``encoder`` writes them, until it is finished or
        the follow has lasted ``HARNESS_STREAM_MAX_S``."""
        heartbeat_s = self._heartbeat_s
        loop = asyncio.get_running_loop()
        until = math.inf if self._lasts_s is None else loop.time() + self._lasts_s
        # the opening goes out with the first events, one write instead of two, or alone when none come soon
        opening = encoder.opening
        cursor = after
        looked_again = False
        with self._feed.follow(run_id) as follower:
            while True:
                run = self._live(run_id)
                held = run.events_after(cursor) if run is not None else None
                if held is None:
                    held, _ = await self._log.read(run_id, cursor)
                if held:
                    events, cursor = await self._with_gaps(run_id, held, cursor)
                    del held
                    data = encoder.encode(events)
                    ended = encoder.finished(events)
                    del events  # a stream held open on a paused run must not keep its replay alive
                    if opening:
                        data, opening = opening + data, b""
                    if data:
                        yield data
                    del data
                    if ended or loop.time() >= until:
                        return
                    continue
                if run is None and (self._closing() or await self._finished(run_id)):
                    if looked_again:
                        if opening:
                            yield opening
                        return
                    # the run ended between the read and now: its terminal event is committed, read it
                    looked_again = True
                    continue
                if opening:
                    if not await follower.wait(cursor, GATHER_S):
                        yield opening
                        opening = b""
                    continue
                while not await follower.wait(cursor, heartbeat_s):
                    yield encoder.heartbeat
                    if loop.time() >= until:
                        return

    async def _finished(self, run_id: str) -> bool:
        record = await self._log.load_run(run_id)
        return record is None or record.snapshot.status in FINISHED

    async def _with_gaps(
        self, run_id: str, events: Sequence[StoredEvent], cursor: int
    ) -> tuple[Sequence[StoredEvent], int]:
        """``events`` after ``cursor``, with a snapshot wherever the seqs jump; and the new cursor."""
        if events[0].seq == cursor + 1 and events[-1].seq == cursor + len(events):
            return events, events[-1].seq  # contiguous: nearly always
        filled: list[StoredEvent] = []
        for event in events:
            if event.seq != cursor + 1:
                filled.append(await self._snapshot_event(run_id, event.seq - 1))
            filled.append(event)
            cursor = event.seq
        return filled, cursor

    async def _snapshot_event(self, run_id: str, seq: int) -> StoredEvent:
        run = self._live(run_id)
        found = run if run is not None else await self._log.load_run(run_id)
        assert found is not None, "a run with events has a record"
        snapshot = found.current_snapshot()
        at = format_timestamp(self._clock.now_ns())
        kind, envelope = self._envelopes.encode(Snapshot(gap=True, run=snapshot), run_id, seq, snapshot.status, at)
        return StoredEvent(seq, kind, envelope)
