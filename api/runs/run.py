"""One run executing on this instance: its recent events, its status, and the JSON callers waiting on it.

A run is here from the moment this instance starts (or resumes, cancels, ends) it until the event that
settles it (``paused`` or terminal) is committed; a paused run lives only in the log. Events are
appended here, queued to the event log, and shown only once the log has committed them. The newest
``window`` events are kept in memory for the streams that follow the run; older ones are read from the log.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import msgspec

from agent import format_timestamp
from api.runs.log.records import FINISHED, RunRecord, StoredEvent
from contracts import TERMINAL_EVENT_TYPES, ErrorInfo, InterruptInfo, Paused, RunError, RunSnapshot, TurnCompleted

if TYPE_CHECKING:
    from agent import Clock
    from agent.graphs import Finish, GraphOutcome, Pause
    from api.runs.log.protocols import EventLog
    from api.runs.stream.frames import EnvelopeEncoder
    from contracts import EventPayload, RunStatus

__all__ = ("Run",)

_SETTLING = frozenset({*TERMINAL_EVENT_TYPES, "paused"})
"""The events after which the run stops executing for now."""


class Run:
    def __init__(
        self,
        record: RunRecord,
        *,
        log: EventLog,
        encoder: EnvelopeEncoder,
        clock: Clock,
        window: int,
    ) -> None:
        self.record = record
        self._run_id = record.snapshot.run_id
        self._events: list[StoredEvent] = []
        """Contiguous events, the newest last; the first has seq ``last_seq - len + 1``."""
        self._log = log
        self._encoder = encoder
        self._clock = clock
        self._window = window
        self.last_seq = record.snapshot.last_seq
        self.committed_seq = record.snapshot.last_seq
        self.outcome_seq: int | None = None
        """The seq of the event that settled the run for now: ``paused`` or the terminal event."""
        self._changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.cancel_reason: str | None = None
        self.grace_timer: asyncio.TimerHandle | None = None
        self.fenced = False
        """Another instance took the run over: this one may no longer write it."""
        self._published = self._committed_snapshot()

    @property
    def run_id(self) -> str:
        return self._run_id

    @property
    def session_id(self) -> str:
        return self.record.snapshot.session_id

    @property
    def status(self) -> RunStatus:
        return self.record.snapshot.status

    @property
    def detached(self) -> bool:
        """Whether the run goes on with nobody following it (a background run of a registered graph)."""
        graph = self.record.graph
        return graph is not None and graph.detached

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def settled(self) -> bool:
        """Whether the run has stopped executing here: paused, finished or taken over."""
        return self.fenced or self.status != "running"

    def current_snapshot(self) -> RunSnapshot:
        """The run as its committed events show it: never a status whose event is not durable yet."""
        return self._published

    def _committed_snapshot(self) -> RunSnapshot:
        return msgspec.structs.replace(self.record.snapshot, last_seq=self.committed_seq)

    # --- appending ---

    def emit(
        self, payload: EventPayload, *, status: RunStatus | None = None, save: bool = False, **extra: object
    ) -> int:
        """Append ``payload`` as the run's next event; ``status`` is the run's status after it. With ``save``,
        the run's record is written together with the event."""
        if self.fenced:
            return self.last_seq
        seq = self.last_seq + 1
        snapshot = self.record.snapshot
        now = format_timestamp(self._clock.now_ns())
        kind, envelope = self._encoder.encode(payload, self._run_id, seq, status or snapshot.status, now, extra=extra)
        event = StoredEvent(seq, kind, envelope)
        events = self._events
        events.append(event)
        if len(events) > 2 * self._window:
            del events[: self._window]
        self.last_seq = seq
        if status is not None and status != snapshot.status:
            snapshot.status = status
            snapshot.updated_at = now
        if kind in _SETTLING:
            self.outcome_seq = seq
        if save:
            snapshot.last_seq = seq
        self._log.append(self._run_id, event, self.record if save else None)
        return seq

    def abort(self, reason: str) -> None:
        """Stop executing the run; its executor ends it with an ``error`` event of ``reason``.

        The task is cancelled once, and a library may swallow that (Python 3.11's ``asyncio.wait_for``, under
        redis-py's commands and psycopg_pool's waits, returns its result when the cancellation lands as the call
        completes): the executor also looks at ``cancel_reason`` at every part the graph streams."""
        if self.task is not None and not self.task.done() and self.cancel_reason is None:
            self.cancel_reason = reason
            self.task.cancel()

    def save(self) -> None:
        self.record.snapshot.last_seq = self.last_seq
        self._log.save_run(self.record)

    def pause(self, pause: Pause, outcome: GraphOutcome) -> None:
        """The graph stopped at interrupts: the run waits for a person (a ``Command(resume=...)``). A run of a
        registered graph (``RunRecord.graph``) also keeps what it waits at and its state so far; a ``/chat`` turn
        keeps its ``ChatResponse`` so far."""
        snapshot, graph = self.record.snapshot, self.record.graph
        snapshot.response = pause.response
        snapshot.pending_approval = pause.approval
        self.record.paused_at_ns = self._clock.now_ns()
        interrupts: list[InterruptInfo] = []
        if graph is not None:
            graph.interrupts = interrupts = pause.interrupts
            graph.output = outcome.values
        self.emit(Paused(approval=pause.approval, interrupts=interrupts), status="waiting", save=True)

    def finish(self, finish: Finish, outcome: GraphOutcome) -> None:
        """The graph finished: what its hooks log before the end, then the terminal event."""
        graph = self.record.graph
        if graph is not None:
            graph.interrupts = []
            graph.output = outcome.values
        if finish.response is not None:
            self.record.snapshot.response = finish.response
        for payload in finish.before:
            self.emit(payload)
        waited = self.record.human_wait_ms
        extra = {} if waited is None or not isinstance(finish.terminal, TurnCompleted) else {"human_wait_ms": waited}
        self.emit(finish.terminal, status="completed", save=True, **extra)

    def resume(self, *, decided_by: str | None) -> None:
        """Back to ``running`` after ``decided_by`` decided; the wait is reported with the terminal event."""
        if self.record.paused_at_ns is not None:
            self.record.human_wait_ms = round((self._clock.now_ns() - self.record.paused_at_ns) / 1e6, 3)
        self.record.paused_at_ns = None
        self.record.snapshot.status = "running"
        self.record.snapshot.pending_approval = None
        self.record.snapshot.decided_by = decided_by
        self.record.snapshot.updated_at = format_timestamp(self._clock.now_ns())
        self.outcome_seq = None
        self.save()

    def fail(self, error: ErrorInfo, *, status: RunStatus = "failed") -> None:
        self.record.snapshot.error = RunError(
            code=error.code, message=error.message, retryable=error.retryable, node=error.node
        )
        self.record.snapshot.pending_approval = None
        self.emit(error, status=status, save=True)

    # --- following ---

    def committed(self, seq: int) -> None:
        self.committed_seq = seq
        if seq >= self.last_seq:
            self._published = self._committed_snapshot()
        else:
            self._published = msgspec.structs.replace(self._published, last_seq=seq)
        self.wake()

    def wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def events_after(self, cursor: int) -> list[StoredEvent] | None:
        """The committed events after ``cursor``; None when some of them are no longer held here."""
        committed = self.committed_seq
        if cursor >= committed:
            return []
        first = self.last_seq - len(self._events) + 1
        if cursor + 1 < first:
            return None
        start = cursor + 1 - first
        return self._events[start : start + committed - cursor]

    async def wait_settled(self, after: int) -> None:
        """Return once an outcome (``paused`` or terminal) after ``after`` is committed, or the run is taken over."""
        while not (self.fenced or self.settled_after(after)):
            changed = self._changed
            await changed.wait()

    def settled_after(self, cursor: int) -> bool:
        """Whether an outcome (``paused`` or terminal) after ``cursor`` is committed."""
        return self.outcome_seq is not None and cursor < self.outcome_seq <= self.committed_seq
