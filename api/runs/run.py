"""One live run: its events, its status, and the streams that follow it.

A run is live from its first event until its terminal event is committed, pauses included. Events
are appended here, queued to the event log, and shown to subscribers only once the log has committed
them; a subscriber reads the retained events straight from memory.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import msgspec

from agent.clock import format_timestamp
from api.runs.records import RunRecord, StoredEvent, trim_point
from contracts import (
    TERMINAL_EVENT_TYPES,
    ErrorInfo,
    Paused,
    PendingApproval,
    RunError,
    RunSnapshot,
    TurnCompleted,
)

if TYPE_CHECKING:
    from agent.clock import Clock
    from api.runs.event_log import EventLog
    from api.runs.frames import EventPayload, FrameEncoder
    from contracts import ChatResponse, RunStatus

__all__ = ("Run",)


class Run:
    def __init__(
        self,
        record: RunRecord,
        kept: list[StoredEvent],
        *,
        log: EventLog,
        encoder: FrameEncoder,
        clock: Clock,
        window: int,
    ) -> None:
        self.record = record
        self._events = kept
        self._log = log
        self._encoder = encoder
        self._clock = clock
        self._window = window
        self.last_seq = record.snapshot.last_seq
        self.committed_seq = record.snapshot.last_seq
        self.outcome_seq: int | None = record.snapshot.last_seq if record.snapshot.status == "waiting" else None
        """The seq of the event that settled the run for now: ``paused`` or the terminal event."""
        self._changed = asyncio.Event()
        self.subscribers = 0
        self.task: asyncio.Task[None] | None = None
        self.cancel_reason: str | None = None
        self.grace_timer: asyncio.TimerHandle | None = None
        self._published = self._current_snapshot()

    @property
    def run_id(self) -> str:
        return self.record.snapshot.run_id

    @property
    def session_id(self) -> str:
        return self.record.snapshot.session_id

    @property
    def status(self) -> RunStatus:
        return self.record.snapshot.status

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed", "cancelled")

    def snapshot(self) -> RunSnapshot:
        """The run as its committed events show it: never a status whose event is not durable yet."""
        return self._published

    def _current_snapshot(self) -> RunSnapshot:
        snapshot = self.record.snapshot
        return RunSnapshot(
            run_id=snapshot.run_id,
            session_id=snapshot.session_id,
            status=snapshot.status,
            last_seq=self.committed_seq,
            started_at=snapshot.started_at,
            updated_at=snapshot.updated_at,
            response=snapshot.response,
            pending_approval=snapshot.pending_approval,
            error=snapshot.error,
        )

    # --- appending ---

    def emit(self, payload: EventPayload, *, status: RunStatus | None = None, **extra: object) -> int:
        """Append ``payload`` as the run's next event; ``status`` is the run's status after it."""
        seq = self.last_seq + 1
        now = format_timestamp(self._clock.now_ns())
        new_status = status or self.status
        kind, frame = self._encoder.encode(payload, run_id=self.run_id, seq=seq, status=new_status, at=now, **extra)
        event = StoredEvent(seq, kind, frame)
        self._events.append(event)
        self.last_seq = seq
        self._forget_trimmed()
        self._log.append(self.run_id, event)
        if status is not None and status != self.record.snapshot.status:
            self.record.snapshot.status = status
            self.record.snapshot.updated_at = now
        if kind in TERMINAL_EVENT_TYPES or kind == "paused":
            self.outcome_seq = seq
        return seq

    def _forget_trimmed(self) -> None:
        """Drop, now and then, events the log no longer keeps either (never the topology)."""
        events = self._events
        if len(events) <= 2 * self._window + 1:
            return
        through = trim_point(self.committed_seq, self._window)
        if events[1].seq <= through:
            del events[1 : 2 + through - events[1].seq]

    def save(self) -> None:
        self.record.snapshot.last_seq = self.last_seq
        self._log.save_run(self.record)

    def pause(self, response: ChatResponse, approval: PendingApproval) -> None:
        self.emit(Paused(approval=approval), status="waiting")
        self.record.snapshot.response = response
        self.record.snapshot.pending_approval = approval
        self.record.paused_at_ns = self._clock.now_ns()
        self.save()

    def resume(self) -> None:
        """Back to ``running`` after a human decided; the wait is reported with the terminal event."""
        if self.record.paused_at_ns is not None:
            self.record.human_wait_ms = round((self._clock.now_ns() - self.record.paused_at_ns) / 1e6, 3)
        self.record.paused_at_ns = None
        self.record.snapshot.status = "running"
        self.record.snapshot.pending_approval = None
        self.record.snapshot.updated_at = format_timestamp(self._clock.now_ns())
        self.outcome_seq = None
        self.save()

    def complete(self, response: ChatResponse) -> None:
        extra = {} if self.record.human_wait_ms is None else {"human_wait_ms": self.record.human_wait_ms}
        self.record.snapshot.response = response
        self.emit(TurnCompleted(response=response), status="completed", **extra)
        self.save()

    def fail(self, error: ErrorInfo, *, status: RunStatus = "failed") -> None:
        self.record.snapshot.error = RunError(
            code=error.code, message=error.message, retryable=error.retryable, node=error.node
        )
        self.record.snapshot.pending_approval = None
        self.emit(error, status=status)
        self.save()

    # --- following ---

    def committed(self, seq: int) -> None:
        self.committed_seq = seq
        if seq >= self.last_seq:
            self._published = self._current_snapshot()
        else:
            self._published = msgspec.structs.replace(self._published, last_seq=seq)
        self.wake()

    def wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_for_change(self, within_s: float) -> bool:
        """Wait for a commit (or a wake-up); False when ``within_s`` seconds passed in silence."""
        try:
            await asyncio.wait_for(self._changed.wait(), within_s)
        except TimeoutError:
            return False
        return True

    def events_after(self, cursor: int) -> list[StoredEvent]:
        """The committed events after ``cursor`` still kept; a seq jump marks events that left the window."""
        committed = self.committed_seq
        if cursor >= committed:
            return []
        if cursor == 0:
            return self._events[:1] + self.events_after(1)
        after = max(cursor, trim_point(committed, self._window))
        start = 1 + after + 1 - self._events[1].seq
        return self._events[start : start + committed - after]

    async def wait_settled(self, after: int) -> None:
        """Return once an outcome (``paused`` or terminal) after ``after`` is committed."""
        while not self.settled_after(after):
            await self.wait_for_change(60.0)

    def settled_after(self, cursor: int) -> bool:
        """Whether an outcome (``paused`` or terminal) after ``cursor`` is committed."""
        return self.outcome_seq is not None and cursor < self.outcome_seq <= self.committed_seq
