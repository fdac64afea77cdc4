"""The run registry: starts turns as runs, resumes and cancels them, and watches their subscribers.

Every turn executes as its own task, never inside a request handler. A running run that loses its last
subscriber goes on for ``disconnect_grace_s``; if nobody comes back, its graph run is aborted. A run
waiting for a human waits regardless.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from typing import TYPE_CHECKING

import msgspec

from agent.clock import format_timestamp
from agent.events import read_topology
from agent.turns import thread_config
from api.exceptions import (
    ApprovalNotFound,
    RunFinished,
    RunNotFound,
    RunNotPaused,
    ServiceUnavailable,
    SessionBusy,
)
from api.runs.executor import execute
from api.runs.frames import FrameEncoder
from api.runs.records import RunRecord, StoredEvent
from api.runs.run import Run
from contracts import ErrorInfo, RunSnapshot

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent.clock import Clock, IdFactory
    from agent.runtime import Agent
    from api.runs.event_log import EventLog
    from api.settings import Settings
    from contracts import ResumeRequest

__all__ = ("RunRegistry",)

_UNCLAIMED_S = 1.0


class RunRegistry:
    def __init__(self, agent: Agent, log: EventLog, settings: Settings, *, clock: Clock, ids: IdFactory) -> None:
        self.agent = agent
        self.log = log
        self.settings = settings
        self.clock = clock
        self._ids = ids
        self.encoder = FrameEncoder()
        self._topology = read_topology(agent.graph, "")
        """The graph's shape, read once: every run's topology event is this with its session."""
        self._live: dict[str, Run] = {}
        self._by_session: dict[str, Run] = {}
        self.closing = False

    # --- life cycle ---

    async def open(self) -> None:
        """Open the log; fail runs a crash left running, and bring back the ones waiting for a human."""
        await self.log.open(self._committed)
        for record in await self.log.unfinished_runs():
            kept, _ = await self.log.read(record.snapshot.run_id, 0)
            run = self._track(record, kept)
            if record.snapshot.status == "running":
                run.fail(_error("server_restarted", "The server restarted while this run was in progress.", True))
        await self.log.flush()

    def begin_shutdown(self) -> None:
        """Stop taking turns and end every open stream: running runs get a terminal error event."""
        if self.closing:
            return
        self.closing = True
        for run in list(self._live.values()):
            if run.status == "running":
                self._abort(run, "server_shutdown")
            run.wake()

    async def close(self) -> None:
        self.begin_shutdown()
        tasks = [run.task for run in self._live.values() if run.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.log.close()

    # --- turns ---

    def start_turn(self, message: str, session_id: str | None) -> Run:
        self._refuse_when_closing()
        session_id = session_id or self._ids.new("s")
        if (busy := self._by_session.get(session_id)) is not None and not busy.finished:
            raise SessionBusy(
                f"Session {session_id} has run {busy.run_id} {busy.status}; wait for it, decide it or cancel it.",
                run_id=busy.run_id,
            )
        now = format_timestamp(self.clock.now_ns())
        snapshot = RunSnapshot(
            run_id=self._ids.new("r"),
            session_id=session_id,
            status="running",
            last_seq=0,
            started_at=now,
            updated_at=now,
            response=None,
            pending_approval=None,
            error=None,
        )
        run = self._track(RunRecord(snapshot=snapshot), [])
        run.save()
        run.emit(msgspec.structs.replace(self._topology, session_id=session_id))
        turn = {"run_id": run.run_id, "session_id": session_id, "message": message}
        self._launch(run, turn)
        return run

    async def resume(self, request: ResumeRequest) -> tuple[Run, int]:
        """Continue a waiting run with the human's decision; returns the run and the seq it resumes after."""
        self._refuse_when_closing()
        run = self._live.get(request.run_id)
        if run is None:
            await self.get(request.run_id, request.session_id)
            raise RunNotPaused(f"Run {request.run_id} has ended; there is nothing left to decide.")
        if request.session_id is not None and request.session_id != run.session_id:
            raise RunNotFound(f"There is no run {request.run_id}" + _for_session(request.session_id))
        pending = run.record.snapshot.pending_approval
        if run.status != "waiting" or pending is None:
            raise RunNotPaused(f"Run {run.run_id} is {run.status}, not waiting for an approval.")
        if pending.approval_id != request.approval_id:
            raise ApprovalNotFound(
                f"Run {run.run_id} waits for approval {pending.approval_id}, not {request.approval_id}."
            )
        cursor = run.last_seq
        run.resume()
        run.emit(msgspec.structs.replace(self._topology, session_id=run.session_id))
        decision = {
            "approval_id": request.approval_id,
            "decision": request.decision,
            "comment": request.comment,
        }
        self._launch(run, decision, resume=True)
        return run, cursor

    def cancel(self, found: Run | RunRecord) -> Run:
        """Cancel a live run: it ends with an ``error`` event ``cancelled``, now or when its node stops."""
        if not isinstance(found, Run) or found.finished:
            snapshot = found.snapshot() if isinstance(found, Run) else found.snapshot
            raise RunFinished(f"Run {snapshot.run_id} has already ended ({snapshot.status}).")
        if found.status == "waiting":
            found.fail(_error("cancelled", "The run was cancelled.", False), status="cancelled")
        else:
            self._abort(found, "cancelled")
        return found

    # --- looking runs up ---

    @property
    def live_count(self) -> int:
        return len(self._live)

    def live(self, run_id: str) -> Run | None:
        return self._live.get(run_id)

    async def get(self, run_id: str, session_id: str | None = None) -> Run | RunRecord:
        """The live run, or the record of a finished one; 404 for unknown runs and other sessions' runs."""
        found: Run | RunRecord | None = self._live.get(run_id) or await self.log.load_run(run_id)
        if found is None:
            raise RunNotFound(f"There is no run {run_id}" + _for_session(session_id))
        owner = found.session_id if isinstance(found, Run) else found.snapshot.session_id
        if session_id is not None and session_id != owner:
            raise RunNotFound(f"There is no run {run_id}" + _for_session(session_id))
        return found

    # --- subscribers ---

    @contextmanager
    def subscribed(self, run: Run) -> Iterator[None]:
        """Count a stream (or a JSON caller) following ``run``; the last one leaving starts the grace period."""
        run.subscribers += 1
        if run.grace_timer is not None:
            run.grace_timer.cancel()
            run.grace_timer = None
        try:
            yield
        finally:
            run.subscribers -= 1
            if run.subscribers == 0 and run.status == "running":
                self._start_grace(run)

    def _start_grace(self, run: Run) -> None:
        grace = self.settings.disconnect_grace_s
        if grace <= 0:
            self._abort(run, "client_disconnected")
            return
        run.grace_timer = asyncio.get_running_loop().call_later(grace, self._grace_over, run)

    def _grace_over(self, run: Run) -> None:
        run.grace_timer = None
        if run.subscribers == 0 and run.status == "running":
            self._abort(run, "client_disconnected")

    # --- internals ---

    def _track(self, record: RunRecord, kept: list[StoredEvent]) -> Run:
        run = Run(
            record,
            kept,
            log=self.log,
            encoder=self.encoder,
            clock=self.clock,
            window=self.settings.replay_window,
        )
        self._live[run.run_id] = run
        self._by_session[run.session_id] = run
        return run

    def _launch(self, run: Run, graph_input: object, *, resume: bool = False) -> None:
        config = thread_config(run.session_id)
        run.cancel_reason = None
        run.task = asyncio.create_task(execute(run, self.agent, graph_input, config, resume=resume), name=run.run_id)
        if run.subscribers == 0:
            # the request that started the run subscribes right away; if it never does, its client is gone
            delay = max(self.settings.disconnect_grace_s, _UNCLAIMED_S)
            run.grace_timer = asyncio.get_running_loop().call_later(delay, self._grace_over, run)

    def _abort(self, run: Run, reason: str) -> None:
        if run.task is not None and not run.task.done() and run.cancel_reason is None:
            run.cancel_reason = reason
            run.task.cancel()

    def _committed(self, run_id: str, seq: int) -> None:
        run = self._live.get(run_id)
        if run is None:
            return
        run.committed(seq)
        if run.finished and seq >= run.last_seq:
            del self._live[run_id]
            if self._by_session.get(run.session_id) is run:
                del self._by_session[run.session_id]

    def _refuse_when_closing(self) -> None:
        if self.closing:
            raise ServiceUnavailable("The service is shutting down; try again shortly.")


def _error(code: str, message: str, retryable: bool) -> ErrorInfo:
    return ErrorInfo(code=code, message=message, retryable=retryable, node=None)


def _for_session(session_id: str | None) -> str:
    return f" in session {session_id}." if session_id else "."
