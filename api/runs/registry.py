"""The run registry: starts turns as runs, resumes and cancels them, and watches who follows them.

Every turn executes as its own task on the instance that received it, never inside a request handler. A run asked for
while its thread is busy may wait for it, queued (``pending``, ``api.runs.queue``), and start on whichever instance
finds the thread free first. A running run that loses its last follower (here and, with shared stores, on every other
instance) goes on for ``disconnect_grace_s``; if nobody comes back, its graph run is aborted. A run waiting for a
human holds no task and lives only in the log, so any instance can resume or cancel it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import msgspec
from langgraph.types import Command

from agent import carries_personal_data, format_timestamp
from agent.graphs import SUPPORT_GRAPH_ID, RunContext, approval_for
from api.runs.access import AccessPolicy
from api.runs.cluster.quotas import LocalStreamQuota
from api.runs.disconnects import Disconnects
from api.runs.erasure import SessionErasure, StoreEraser
from api.runs.errors import (
    ApprovalNotFound,
    NotAnApprover,
    NotTheOwner,
    RunFinished,
    RunNotFinished,
    RunNotFound,
    RunNotPaused,
    RunRequestInvalid,
    RunsUnavailable,
    SessionBusy,
    SessionIdRefused,
    SessionNotFound,
)
from api.runs.executor import execute_graph
from api.runs.log.records import FINISHED, PENDING, GraphRun, RunRecord
from api.runs.principal import Principal
from api.runs.queue import QueueLoop
from api.runs.retention import RetentionLoop
from api.runs.rollback import rewind
from api.runs.run import Run
from api.runs.run_options import graph_run_config
from api.runs.stream.follow import RunStreams
from api.runs.stream.frames import EnvelopeEncoder
from api.runs.thread_expiry import ThreadExpiry
from api.runs.threads import ThreadBook
from contracts import ApprovalRequest, ErrorInfo, RunSnapshot

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from agent import Agent, Clock, IdFactory
    from agent.graphs import GraphRegistry, RegisteredGraph
    from api.runs.cluster.protocol import Cluster
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.erasure import Crons
    from api.runs.log.protocols import EventLog
    from api.runs.settings import RunSettings
    from api.runs.stream.feed import Follower, RunFeed
    from api.runs.webhooks import Webhooks
    from contracts import PendingApproval, ResumeRequest

__all__ = ("RunRegistry",)

logger = logging.getLogger(__name__)

_POLL_S = 0.05
_CANCEL_SETTLE_S = 5.0
_ATTEMPTS = 3
"""How many times a run with ``interrupt`` or ``rollback`` clears its thread before it gives up (409): another
run asked for at the same moment may take the thread first."""
_LOST = {
    "server_restarted": "The server restarted while this run was in progress.",
    "instance_lost": "The instance executing this run stopped answering; the run can be started again.",
}


class RunRegistry:
    """The runs of this instance: it starts, resumes and stops them, and answers for them to the streams, the
    erasure (``LiveRuns``) and the other instances (``LocalRuns``), each through the narrow seam it needs."""

    def __init__(
        self,
        agent: Agent,
        log: EventLog,
        settings: RunSettings,
        *,
        clock: Clock,
        ids: IdFactory,
        graphs: GraphRegistry,
        cluster: Cluster | None = None,
        crons: Crons | None = None,
        webhooks: Webhooks | None = None,
    ) -> None:
        """``crons``: what removes a deleted thread's crons, and an erased subject's (``api.crons``); ``webhooks``:
        what delivers a run with a ``webhook`` when it ends (``api.webhooks``)."""
        self.agent = agent
        self.graphs = graphs
        """Every graph the service serves (the support agent is ``support``)."""
        self.started_at = format_timestamp(clock.now_ns())
        """When this instance began serving them (what the Agent Protocol shows as its assistants' times)."""
        self.log = log
        self.settings = settings
        self.clock = clock
        self.cluster = cluster
        self.access = AccessPolicy(approver_role=settings.approver_role, legacy_subject=settings.legacy_subject)
        self.stream_quota: StreamQuota = (
            cluster.streams if cluster is not None else LocalStreamQuota(settings.streams_per_subject)
        )
        """Open event streams per subject (``HARNESS_STREAMS_PER_SUBJECT``), across the instances."""
        self._ids = ids
        self._envelopes = EnvelopeEncoder()
        self._support = graphs[SUPPORT_GRAPH_ID]
        """The support agent, which ``/chat`` turns run."""
        self._live: dict[str, Run] = {}
        self._disconnects = Disconnects(self._live, grace_s=settings.disconnect_grace_s, cluster=cluster)
        self.feed: RunFeed = self._disconnects.feed
        self._background: set[asyncio.Task[None]] = set()
        """Work a run asked for after it ended (the erasure a deleted account asks for)."""
        self.closing = False
        self.streams = RunStreams(
            log=log,
            feed=self.feed,
            live=self._live.get,
            closing=lambda: self.closing,
            envelopes=self._envelopes,
            clock=clock,
            heartbeat_s=settings.heartbeat_s,
            lasts_s=settings.stream_max_s,
            retry_ms=settings.retry_ms,
        )
        """Every stream of a run on this instance follows it here, in the encoding of its protocol."""
        self.threads = ThreadBook(log, access=self.access, ids=ids, clock=clock)
        """The Agent Protocol's threads (sessions with a graph, metadata and times)."""
        self._webhooks = webhooks
        self.eraser = StoreEraser(log, agent.stores, crons, webhooks)
        self.erasure = SessionErasure(self, log, self.eraser, access=self.access, lease_s=settings.run_lease_s)
        self._retention = (
            RetentionLoop(self.eraser, settings, clock=clock, cluster=cluster)
            if settings.retention_days is not None
            else None
        )
        self._thread_expiry = (
            ThreadExpiry(log, self.eraser, graphs.thread_ttl, clock=clock, cluster=cluster)
            if graphs.thread_ttl is not None
            else None
        )
        """Deletes the threads idle for longer than ``langgraph.json``'s ``checkpointer.ttl``."""
        self.queue = QueueLoop(log, self.start_queued)
        """Starts the queued runs of threads that are free, on whichever instance looks first."""

    # --- life cycle ---

    async def open(self) -> None:
        """Open the log and end the runs whose executor is gone (a crash, or a lost instance)."""
        await self.log.open(self._committed, self.fenced)
        await self.end_lost_runs()
        if self.cluster is not None:
            await self.cluster.start(self)
        if self._retention is not None:
            self._retention.start()
        if self._thread_expiry is not None:
            self._thread_expiry.start()
        self.queue.start()

    def begin_shutdown(self) -> None:
        """Stop taking turns and end every open stream: running runs get a terminal error event."""
        if self.closing:
            return
        self.closing = True
        for run in list(self._live.values()):
            if run.status == "running":
                run.abort("server_shutdown")
        self.feed.wake_all()

    async def close(self) -> None:
        self.begin_shutdown()
        await self.queue.stop()
        if self._retention is not None:
            await self._retention.stop()
        if self._thread_expiry is not None:
            await self._thread_expiry.stop()
        tasks = [run.task for run in self._live.values() if run.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.idle()
        try:
            await self.log.flush()
        finally:
            if self.cluster is not None:
                await self.cluster.stop()
            await self.log.close()

    async def end_lost_runs(self) -> None:
        """End, with a retryable error, every run recorded as running whose executor is gone."""
        code = "instance_lost" if self.cluster is not None else "server_restarted"
        for run_id in await self.log.lost_runs():
            if run_id in self._live:
                continue  # ours: a lease renewal that came late, not a lost executor
            record = await self.log.claim_run(run_id)
            if record is None:
                continue
            if record.snapshot.status not in ("running", PENDING):  # pending: started, not recorded running yet
                await self.log.release_run(run_id)
                continue
            logger.warning("run %s lost its executor; ending it with %s", run_id, code)
            self._track(record).fail(_error(code, _LOST[code], True))

    # --- turns ---

    async def start_turn(self, message: str, session_id: str | None, principal: Principal) -> Run:
        """Start a ``/chat`` turn of the support agent as a new run in ``session_id`` (a new session when None) for
        ``principal``: a run of its registered graph like any other, whose events are the contract's own."""
        return await self.start_graph_run(self._support, session_id, {"message": message}, None, principal)

    # --- runs of registered graphs (the Agent Protocol) ---

    async def start_graph_run(
        self,
        registered: RegisteredGraph,
        thread_id: str | None,
        graph_input: Any,
        options: GraphRun | None,
        principal: Principal,
        *,
        interrupt_busy: bool = False,
        rollback_busy: bool = False,
    ) -> Run:
        """Start a run of ``registered`` on the thread ``thread_id`` (a new one when None) for ``principal``; a
        thread busy with another run (or with runs queued) is a 409, or, with ``interrupt_busy``, those runs are
        ended first, or, with ``rollback_busy``, ended and removed with their checkpoints (``roll_back``).
        ``options``: how a protocol asked for it (None: a ``/chat`` turn, which logs the contract's events only)."""
        self._refuse_when_closing()
        if thread_id is not None and carries_personal_data(thread_id):
            raise SessionIdRefused
        new_thread = thread_id is None
        thread_id = thread_id or self._ids.new("s")
        record = self._new_record(thread_id, principal, graph=options)
        await self._expect_webhook(record)
        access = self.access.session_access(principal)
        busy = await self.log.begin_run(record, access, new_session=new_thread)
        for _ in range(_ATTEMPTS if interrupt_busy or rollback_busy else 0):
            if busy is None:
                break
            await self._clear_thread(thread_id, roll_back=rollback_busy)
            busy = await self.log.begin_run(record, access)
        if busy is not None:
            await self._unexpect_webhook(record)
            raise SessionBusy(
                f"Thread {thread_id} has run {busy} unfinished; wait for it, resume or cancel it, or ask for "
                "multitask_strategy enqueue, interrupt or rollback.",
                run_id=busy,
            )
        run = self._launch_new(record, registered, graph_input, principal)
        await asyncio.sleep(0)  # the graph starts now and waits on its checkpointer while the response is built
        return run

    async def enqueue_graph_run(
        self,
        registered: RegisteredGraph,
        thread_id: str,
        graph_input: Any,
        options: GraphRun,
        principal: Principal,
    ) -> Run | RunRecord:
        """Start a run of ``registered`` on the thread ``thread_id`` for ``principal`` when the thread is free and
        nothing is queued before it; else queue it (``pending``, its input in its record) to start, in order, once
        the thread is free, on whichever instance finds it so first. The run, or its pending record."""
        self._refuse_when_closing()
        if carries_personal_data(thread_id):
            raise SessionIdRefused
        record = self._new_record(thread_id, principal, graph=options)
        await self._expect_webhook(record)
        if await self.log.begin_run(record, self.access.session_access(principal)) is None:
            run = self._launch_new(record, registered, graph_input, principal)
            await asyncio.sleep(0)
            return run
        record.snapshot.status = "pending"
        options.input = graph_input
        await self.log.enqueue_run(record)
        await self.start_queued(thread_id)  # the thread's run may have ended meanwhile
        return self._live.get(record.run_id) or record

    async def start_queued(self, session_id: str) -> Run | None:
        """Start the first queued run of the session if its thread is free now; the run started, if one was."""
        if self.closing:
            return None
        record = await self.log.start_queued(session_id)
        if record is None:
            return None
        graph = record.graph
        assert graph is not None, "only runs of registered graphs are queued"
        graph_input, graph.input = graph.input, None
        snapshot = record.snapshot
        snapshot.status = "running"
        snapshot.updated_at = format_timestamp(self.clock.now_ns())
        registered = self.graphs.get(graph.graph_id)
        if registered is None:
            run = self._track(record)
            run.fail(_error("graph_not_served", f"Graph {graph.graph_id!r} is no longer served.", False))
            return run
        self.log.save_run(record)
        principal = Principal(subject=record.owner, account_id=record.account_id)
        return self._launch_new(record, registered, graph_input, principal)

    async def roll_back(self, run_id: str, thread_id: str) -> None:
        """End the run and remove it: its checkpoints (the thread's state is as it was before it) and its record
        and events, as the Agent Server's ``rollback`` does. The thread is held meanwhile, as an erasure holds it,
        so that no queued run starts on it (anywhere) from a state about to be taken back."""
        async with self.eraser.holding([thread_id]):
            await self._take_back(run_id, thread_id)

    async def _clear_thread(self, thread_id: str, *, roll_back: bool) -> None:
        """End the thread's unfinished run and its queued runs (``superseded``); with ``roll_back``, remove them too.
        The thread is held meanwhile, so that no queued run starts when the one before it ends."""
        async with self.eraser.holding([thread_id]):
            active = await self.log.active_run(thread_id)
            for run_id in [*([active] if active else []), *await self.log.queued_runs(thread_id)]:
                found = await self.find(run_id)
                if found is None or found.current_snapshot().status in FINISHED:
                    continue  # ended meanwhile, or before (a queued run cancelled): not this run's to take back
                if roll_back:
                    await self._take_back(run_id, thread_id)
                else:
                    await self._end_run(run_id, "superseded")

    async def _take_back(self, run_id: str, thread_id: str) -> None:
        await self._end_run(run_id, "superseded")
        await rewind(self.agent.stores.checkpointer, thread_id, run_id)
        await self.log.erase_runs([(run_id, thread_id)])

    async def cancel_rolling_back(self, found: Run | RunRecord, principal: Principal) -> None:
        """``cancel`` with ``action=rollback``: the run ends and is removed (``roll_back``)."""
        if not self.access.owns(principal, found.record):
            raise NotTheOwner("Only the subject who started a run may cancel it.")
        snapshot = found.current_snapshot()
        if snapshot.status in FINISHED:
            raise RunFinished(f"Run {snapshot.run_id} has already ended ({snapshot.status}).")
        await self.roll_back(snapshot.run_id, snapshot.session_id)

    async def delete_run(self, found: Run | RunRecord, principal: Principal) -> None:
        """Remove a finished run of ``principal``'s, its record and events and interaction, as an erasure removes
        them (the thread and its checkpoints stay); an unfinished one (queued, running, waiting) is a 409."""
        if not self.access.owns(principal, found.record):
            raise NotTheOwner("Only the subject who started a run may delete it.")
        snapshot = found.current_snapshot()
        if snapshot.status not in FINISHED:
            raise RunNotFinished(
                f"Run {snapshot.run_id} is {snapshot.status}: cancel it, then delete it once it has ended.",
                run_id=snapshot.run_id,
            )
        await self.eraser.forget_runs([(snapshot.run_id, snapshot.session_id)])

    async def resume_graph_run(
        self, registered: RegisteredGraph, thread_id: str, resume: Any, options: GraphRun, principal: Principal
    ) -> tuple[Run, int]:
        """Continue the thread's run that waits at an interrupt with ``Command(resume=resume)``, for ``principal``
        (who must be allowed to decide it); the run, and the seq it resumes after. The stream modes of the
        resuming request (``options``) join the run's."""
        self._refuse_when_closing()
        run_id = await self.log.active_run(thread_id)
        found = None if run_id is None else await self.find(run_id)
        if found is None or found.record.graph is None or found.current_snapshot().status != "waiting":
            raise RunNotPaused(f"Thread {thread_id} has no run waiting at an interrupt.")
        found = await self.get(found.run_id, principal)
        if not self.access.may_decide(principal, found.record):
            raise NotAnApprover(f"Only subjects with the role {self.access.approver_role!r} answer interrupts.")
        record = await self.log.claim_run(found.run_id)
        if record is None or record.snapshot.status != "waiting" or record.graph is None:
            if record is not None:
                await self.log.release_run(found.run_id)
            raise RunNotPaused(f"Run {found.run_id} is being resumed or executed right now.")
        if options.webhook is not None:  # the resumed run is delivered to the newest webhook asked for
            record.graph.webhook = options.webhook
            try:
                await self._expect_webhook(record)
            except BaseException:
                await self.log.release_run(found.run_id)
                raise
        record.graph.modes = sorted({*record.graph.modes, *options.modes})
        record.graph.stream_modes = sorted({*record.graph.stream_modes, *options.stream_modes})
        pending = record.snapshot.pending_approval
        run = self._track(record)
        cursor = run.last_seq
        run.resume(decided_by=principal.subject)
        run.emit(msgspec.structs.replace(registered.topology, session_id=thread_id))
        approval_id = pending.approval_id if pending is not None else ""
        self._launch_graph(run, registered, Command(resume=resume), principal, deciding=approval_id)
        return run, cursor

    async def resume(self, request: ResumeRequest, principal: Principal) -> tuple[Run, int]:
        """Continue a waiting run with ``principal``'s decision; returns the run and the seq it resumes after."""
        self._refuse_when_closing()
        found = await self.get(request.run_id, principal, session_id=request.session_id)
        if (graph := found.record.graph) is not None and graph.graph_id != SUPPORT_GRAPH_ID:
            # the support agent's runs take this decision whichever protocol started them (AG-UI, the Agent Protocol)
            raise RunRequestInvalid(
                f"Run {request.run_id} is a run of graph {graph.graph_id!r}: answer its interrupt with POST "
                f"/threads/{found.record.snapshot.session_id}/runs and a command.resume (docs/agent-protocol.md)."
            )
        snapshot = found.current_snapshot()
        if snapshot.status != "waiting":  # decided already, or never paused: the same for everyone
            _check_decidable(snapshot, request)
        if not self.access.may_decide(principal, found.record):
            raise NotAnApprover(f"Only subjects with the role {self.access.approver_role!r} decide approvals.")
        _check_decidable(snapshot, request)
        record = await self.log.claim_run(request.run_id)
        if record is None:
            raise RunNotPaused(f"Run {request.run_id} is being decided or executed right now.")
        try:
            _check_decidable(record.snapshot, request)
        except Exception:
            await self.log.release_run(request.run_id)
            raise
        run = self._track(record)
        cursor = run.last_seq
        run.resume(decided_by=principal.subject)
        run.emit(msgspec.structs.replace(self._support.topology, session_id=run.session_id))
        decision: Command[Any] = Command(resume={"decision": request.decision, "comment": request.comment})
        self._launch_graph(run, self._support, decision, principal, deciding=request.approval_id)
        return run, cursor

    async def cancel(self, found: Run | RunRecord, principal: Principal) -> RunSnapshot:
        """End the run with an ``error`` event ``cancelled``: at once when it waits or runs here, as soon as its
        executor hears of it when it runs elsewhere. Returns the run as it stands then."""
        if not self.access.owns(principal, found.record):
            raise NotTheOwner("Only the subject who started a run may cancel it.")
        return await self.stop(found)

    async def stop(self, found: Run | RunRecord) -> RunSnapshot:
        """``cancel`` without asking who: for the erasure of the run's session."""
        if isinstance(found, Run) and not found.settled:
            found.abort("cancelled")
            return await _settled_snapshot(found, found.last_seq)
        run_id = found.run_id
        if isinstance(found, Run):
            await self.log.flush()  # it just paused or ended: settle that first
        record = await self.log.load_run(run_id)
        assert record is not None, "the run was found"
        status = record.snapshot.status
        if status in FINISHED:
            raise RunFinished(f"Run {run_id} has already ended ({status}).")
        if status == PENDING:
            return await self._cancel_queued(run_id)
        if status == "running":
            if self.cluster is None:
                raise RunNotPaused(f"Run {run_id} is starting or ending; try again.")
            await self.cluster.request_cancel(run_id)
            return record.snapshot
        claimed = await self.log.claim_run(run_id)
        if claimed is None or claimed.snapshot.status != "waiting":
            if claimed is not None:
                await self.log.release_run(run_id)
            raise RunNotPaused(f"Run {run_id} is being decided right now; try again.")
        run = self._track(claimed)
        cursor = run.last_seq
        run.fail(_error("cancelled", "The run was cancelled.", False), status="cancelled")
        return await _settled_snapshot(run, cursor)

    async def _cancel_queued(self, run_id: str) -> RunSnapshot:
        """End a run that waits in its thread's queue, before it starts (``cancelled``)."""
        claimed = await self.log.claim_run(run_id)
        if claimed is None or claimed.snapshot.status != PENDING:
            if claimed is not None:
                await self.log.release_run(run_id)
            raise RunNotPaused(f"Run {run_id} is starting right now; try again.")
        if claimed.graph is not None:
            claimed.graph.input = None
        run = self._track(claimed)
        run.fail(_error("cancelled", "The run was cancelled before it started.", False), status="cancelled")
        return await _settled_snapshot(run, 0)

    async def check(self) -> None:
        """Raise ``ServiceUnavailable`` unless the service can take turns now."""
        if self.closing:
            raise RunsUnavailable("The service is shutting down.")
        try:
            await self.log.check()
            if self.cluster is not None:
                await self.cluster.check()
        except Exception as exc:
            raise RunsUnavailable(f"A store the service needs is unreachable ({_why(exc)}).") from exc

    async def active_run_of(self, session_id: str, principal: Principal) -> str | None:
        """The session's unfinished run (running, or waiting for a person), if it has one; a session of another
        subject does not exist for ``principal`` (404), an unknown one has no active run."""
        known, owner = await self.log.session_owner(session_id)
        if known and not self.access.session_access(principal).may_continue(owner):
            raise SessionNotFound(f"There is no session {session_id}.")
        run_id = await self.log.active_run(session_id)
        if run_id is None:
            return None
        await self.get(run_id, principal, session_id=session_id)
        return run_id

    # --- looking runs up ---

    @property
    def live_count(self) -> int:
        return len(self._live)

    def live(self, run_id: str) -> Run | None:
        """The run when it executes on this instance."""
        return self._live.get(run_id)

    async def find(self, run_id: str) -> Run | RunRecord | None:
        """The live run, or the record of one that is not executing here, whoever asks; None for an unknown run."""
        return self._live.get(run_id) or await self.log.load_run(run_id)

    async def get(self, run_id: str, principal: Principal, *, session_id: str | None = None) -> Run | RunRecord:
        """The run, as ``find``; 404 for unknown runs, other sessions' runs, and runs ``principal`` may not read."""
        found = await self.find(run_id)
        if found is None:
            raise RunNotFound(f"There is no run {run_id}" + _for_session(session_id))
        record = found.record
        if (session_id is not None and session_id != record.snapshot.session_id) or not self.access.may_read(
            principal, record
        ):
            raise RunNotFound(f"There is no run {run_id}" + _for_session(session_id))
        return found

    async def pending_approvals(self, principal: Principal) -> list[ApprovalRequest]:
        """The approvals waiting that ``principal`` may decide, oldest first."""
        requests = []
        for record in await self.log.waiting_runs():
            snapshot, pending = record.snapshot, record.snapshot.pending_approval
            if pending is None or not self.access.may_decide(principal, record):
                continue
            graph = record.graph
            asked: list[tuple[PendingApproval, str | None]] = (
                [(approval_for(interrupt), interrupt.id) for interrupt in graph.interrupts]
                if graph is not None and graph.interrupts
                else [(pending, None)]
            )
            requests += [
                ApprovalRequest(
                    run_id=snapshot.run_id,
                    session_id=snapshot.session_id,
                    approval_id=approval.approval_id,
                    action=approval.action,
                    summary=approval.summary,
                    requested_by=record.owner,
                    requested_at=snapshot.updated_at,
                    graph_id=None if graph is None else graph.graph_id,
                    assistant_id=None if graph is None else graph.assistant_id,
                    interrupt_id=interrupt_id,
                )
                for approval, interrupt_id in asked
            ]
        return requests

    # --- followers (streams and JSON callers), and the other instances ---

    def subscribed(self, run_id: str) -> Follower:
        """Follow a run (a stream, or a JSON caller) in a ``with`` block; the last follower leaving starts the
        grace period."""
        return self.feed.follow(run_id)

    async def unfollowed(self, run_id: str) -> None:
        """Return once nobody here follows the run."""
        await self.feed.unfollowed(run_id)

    def followers(self, run_id: str) -> int:
        return self.feed.count(run_id)

    def notify_followers(self, run_id: str, seq: int) -> None:
        """Events of a run executing elsewhere are committed up to ``seq``: wake its followers here."""
        self.feed.notify(run_id, seq)

    def start_grace(self, run_id: str) -> None:
        """Abort the run unless a follower comes within the grace period (a cluster found it unfollowed)."""
        run = self._live.get(run_id)
        if run is not None:
            self._disconnects.start_grace(run)

    def orphaned(self) -> list[Run]:
        return self._disconnects.orphaned()

    def held_here(self) -> list[str]:
        """Runs this instance writes: executing, or settled but with the settling event not committed yet."""
        return [run_id for run_id, run in self._live.items() if not run.fenced]

    # --- internals ---

    def _track(self, record: RunRecord) -> Run:
        run = Run(
            record,
            log=self.log,
            encoder=self._envelopes,
            clock=self.clock,
            window=self.settings.replay_window,
        )
        self._live[run.run_id] = run
        return run

    def _launch_new(
        self, record: RunRecord, registered: RegisteredGraph, graph_input: Any, principal: Principal
    ) -> Run:
        run = self._track(record)
        run.emit(msgspec.structs.replace(registered.topology, session_id=record.snapshot.session_id))
        self._launch_graph(run, registered, graph_input, principal)
        return run

    def _new_record(self, session_id: str, principal: Principal, *, graph: GraphRun | None = None) -> RunRecord:
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
        if graph is not None and principal.user is not None:
            graph.auth_user = principal.user
        return RunRecord(snapshot=snapshot, owner=principal.subject, account_id=principal.account_id, graph=graph)

    async def _end_run(self, run_id: str, reason: str) -> None:
        """End the run ``run_id`` (``reason`` when it executes here, ``cancelled`` else) and return once it has."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.run_lease_s + 15
        while (found := await self.find(run_id)) is not None and found.current_snapshot().status not in FINISHED:
            if isinstance(found, Run) and not found.settled:
                found.abort(reason)
            with contextlib.suppress(RunFinished, RunNotPaused):
                await self.stop(found)
            if loop.time() > deadline:
                raise SessionBusy(f"Run {run_id} did not end; try again.", run_id=run_id)
            await asyncio.sleep(_POLL_S)

    def _launch_graph(
        self,
        run: Run,
        registered: RegisteredGraph,
        graph_input: Any,
        principal: Principal,
        *,
        deciding: str | None = None,
    ) -> None:
        """Execute a run of ``registered``; ``deciding``: it resumes, deciding that approval."""
        context = RunContext(
            run_id=run.run_id,
            thread_id=run.session_id,
            subject=principal.subject,
            account_id=principal.account_id,
            deciding=deciding,
            decided_by=run.record.snapshot.decided_by,
        )
        config = graph_run_config(run, registered, run.record.graph)
        run.cancel_reason = None
        run.task = asyncio.create_task(self._execute(run, registered, graph_input, config, context), name=run.run_id)
        self._disconnects.launched(run)

    async def _execute(
        self, run: Run, registered: RegisteredGraph, graph_input: Any, config: RunnableConfig, context: RunContext
    ) -> None:
        deleted = await execute_graph(run, registered, graph_input, config, clock=self.clock, context=context)
        if run.finished and not run.fenced and not self.closing:
            task = asyncio.create_task(self._start_next(run), name=f"start-next-{run.run_id}")
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        if deleted is not None:
            task = asyncio.create_task(self.erasure.erase_account(deleted, run), name=f"erase-account-{run.run_id}")
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _start_next(self, ended: Run) -> None:
        """Start the run queued next on the thread of ``ended``, once its end is committed (else the queue loop
        does, shortly)."""
        try:
            await ended.wait_settled(0)
            await self.start_queued(ended.session_id)
        except Exception:
            logger.warning("could not start the run queued after %s yet", ended.run_id, exc_info=True)

    async def idle(self) -> None:
        """Return once the work runs asked for after they ended (erasures) is done."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    def _committed(self, run_id: str, seq: int) -> None:
        run = self._live.get(run_id)
        if run is not None:
            run.committed(seq)
            if run.settled and seq >= run.last_seq:
                if run.finished and self._webhooks is not None and (graph := run.record.graph) and graph.webhook:
                    self._webhooks.ended(run_id)
                del self._live[run_id]
        self.feed.notify(run_id, seq)

    def fenced(self, run_id: str) -> None:
        """Another instance took this run over: stop executing it here without writing anything more."""
        run = self._live.pop(run_id, None)
        if run is None:
            return
        logger.warning("run %s was taken over by another instance; stopping it here", run_id)
        run.fenced = True
        run.abort("fenced")
        run.wake()
        self.feed.wake(run_id)

    def check_webhook(self, options: GraphRun) -> None:
        """Refuse (422 ``webhook_not_allowed``) a run whose ``webhook`` may not be called. ``api.graph_runs`` asks
        before it finds or makes the run's thread, so a refused run leaves no thread behind."""
        if self._webhooks is not None and options.webhook is not None:
            self._webhooks.check(options.webhook)

    async def _expect_webhook(self, record: RunRecord) -> None:
        if self._webhooks is not None and record.graph is not None and record.graph.webhook is not None:
            await self._webhooks.expect(record)

    async def _unexpect_webhook(self, record: RunRecord) -> None:
        if self._webhooks is not None and record.graph is not None and record.graph.webhook is not None:
            await self._webhooks.forget([record.run_id], [])

    def _refuse_when_closing(self) -> None:
        if self.closing:
            raise RunsUnavailable("The service is shutting down; try again shortly.")


async def _settled_snapshot(run: Run, cursor: int) -> RunSnapshot:
    """The run's snapshot once an outcome after ``cursor`` is committed, or as it is after a short wait."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(run.wait_settled(cursor), _CANCEL_SETTLE_S)
    return run.current_snapshot()


def _check_decidable(snapshot: RunSnapshot, request: ResumeRequest) -> None:
    pending = snapshot.pending_approval
    if snapshot.status != "waiting" or pending is None:
        raise RunNotPaused(f"Run {snapshot.run_id} is {snapshot.status}, not waiting for an approval.")
    if pending.approval_id != request.approval_id:
        raise ApprovalNotFound(
            f"Run {snapshot.run_id} waits for approval {pending.approval_id}, not {request.approval_id}."
        )


def _error(code: str, message: str, retryable: bool) -> ErrorInfo:
    return ErrorInfo(code=code, message=message, retryable=retryable, node=None)


def _why(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _for_session(session_id: str | None) -> str:
    return f" in session {session_id}." if session_id else "."
