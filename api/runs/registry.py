"""The run registry: the run core's front. It starts turns as runs, finds, resumes and cancels them, and answers for
them to the streams, the erasure and the other instances; the work is its collaborators'.

``RunLauncher`` executes each run as its own task on the instance that received it, never inside a request handler;
``Multitask`` decides what a run asked for on a busy thread does (queue it, or end the thread's runs first);
``Resumption`` continues a run waiting for a person, ``RunStopper`` ends one, ``Disconnects`` aborts a running run
nobody follows after ``disconnect_grace_s``, ``Upkeep`` runs the background loops. A run waiting for a human holds no
task and lives only in the log, so any instance can resume or cancel it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from agent import carries_personal_data, format_timestamp
from agent.graphs import SUPPORT_GRAPH_ID
from api.runs.access import AccessPolicy
from api.runs.approvals import ApprovalInbox
from api.runs.cluster.quotas import LocalStreamQuota
from api.runs.erasure import SessionErasure, StoreEraser
from api.runs.errors import (
    NotTheOwner,
    RunNotFinished,
    RunNotFound,
    RunsUnavailable,
    SessionIdRefused,
    SessionNotFound,
)
from api.runs.launcher import RunLauncher
from api.runs.log.records import FINISHED, GraphRun, RunRecord
from api.runs.multitask import Multitask
from api.runs.resumption import Resumption
from api.runs.stopping import RunStopper
from api.runs.stream.follow import RunStreams
from api.runs.threads import ThreadBook
from api.runs.upkeep import Upkeep
from api.runs.webhook_expectations import WebhookExpectations

if TYPE_CHECKING:
    from agent import Agent, Clock, IdFactory
    from agent.graphs import GraphRegistry, RegisteredGraph
    from api.runs.cluster.protocol import Cluster
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.erasure import Crons
    from api.runs.log.protocols import EventLog
    from api.runs.principal import Principal
    from api.runs.run import Run
    from api.runs.settings import RunSettings
    from api.runs.stream.feed import Follower, RunFeed
    from api.runs.webhooks import Webhooks
    from contracts import ResumeRequest, RunSnapshot

__all__ = ("RunRegistry",)


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
        self._support = graphs[SUPPORT_GRAPH_ID]
        """The support agent, which ``/chat`` turns run."""
        self.closing = False
        self._webhooks = WebhookExpectations(webhooks)
        self.eraser = StoreEraser(log, agent.stores, crons, webhooks)
        self.erasure = SessionErasure(self, log, self.eraser, access=self.access, lease_s=settings.run_lease_s)
        self._launcher = RunLauncher(
            log,
            settings,
            clock=clock,
            ids=ids,
            graphs=graphs,
            cluster=cluster,
            webhooks=self._webhooks,
            closing=lambda: self.closing,
            erase_account=self.erasure.erase_account,
        )
        self._live = self._launcher.live
        self._disconnects = self._launcher.disconnects
        self.feed: RunFeed = self._disconnects.feed
        """Who follows which run on this instance."""
        self.multitask = Multitask(
            self,
            log,
            self._launcher,
            self.eraser,
            agent.stores.checkpointer,
            access=self.access,
            webhooks=self._webhooks,
            lease_s=settings.run_lease_s,
        )
        """What a run asked for on a busy thread does (enqueue, interrupt, rollback)."""
        self._stopper = RunStopper(log, self._launcher, cluster)
        self.approvals = ApprovalInbox(log, self.access)
        """The approvals waiting for a person, across the instances."""
        self._resumption = Resumption(
            self, log, self._launcher, self._support, access=self.access, webhooks=self._webhooks
        )
        self.streams = RunStreams(
            log=log,
            feed=self.feed,
            live=self._live.get,
            closing=lambda: self.closing,
            envelopes=self._launcher.envelopes,
            clock=clock,
            heartbeat_s=settings.heartbeat_s,
            lasts_s=settings.stream_max_s,
            retry_ms=settings.retry_ms,
        )
        """Every stream of a run on this instance follows it here, in the encoding of its protocol."""
        self.threads = ThreadBook(log, access=self.access, ids=ids, clock=clock)
        """The Agent Protocol's threads (sessions with a graph, metadata and times)."""
        self._upkeep = Upkeep(
            log,
            self.eraser,
            settings,
            thread_ttl=graphs.thread_ttl,
            start_queued=self._launcher.start_queued,
            clock=clock,
            cluster=cluster,
        )

    # --- life cycle ---

    async def open(self) -> None:
        """Open the log and end the runs whose executor is gone (a crash, or a lost instance)."""
        await self.log.open(self._committed, self.fenced)
        await self.end_lost_runs()
        if self.cluster is not None:
            await self.cluster.start(self)
        self._upkeep.start()

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
        await self._upkeep.stop()
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
        await self._launcher.end_lost_runs()

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
        record = self._launcher.new_record(thread_id, principal, graph=options)
        return await self.multitask.start(
            record,
            registered,
            graph_input,
            principal,
            new_thread=new_thread,
            interrupt_busy=interrupt_busy,
            rollback_busy=rollback_busy,
        )

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
        record = self._launcher.new_record(thread_id, principal, graph=options)
        return await self.multitask.enqueue(record, registered, graph_input, options, principal)

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
        """Continue the thread's run that waits at an interrupt with ``Command(resume=resume)`` (``Resumption``)."""
        self._refuse_when_closing()
        return await self._resumption.resume_graph_run(registered, thread_id, resume, options, principal)

    async def resume(self, request: ResumeRequest, principal: Principal) -> tuple[Run, int]:
        """Continue a waiting run with ``principal``'s decision; returns the run and the seq it resumes after."""
        self._refuse_when_closing()
        return await self._resumption.resume(request, principal)

    async def cancel(self, found: Run | RunRecord, principal: Principal) -> RunSnapshot:
        """End the run with an ``error`` event ``cancelled``: at once when it waits or runs here, as soon as its
        executor hears of it when it runs elsewhere. Returns the run as it stands then."""
        if not self.access.owns(principal, found.record):
            raise NotTheOwner("Only the subject who started a run may cancel it.")
        return await self.stop(found)

    async def stop(self, found: Run | RunRecord) -> RunSnapshot:
        """``cancel`` without asking who: for the erasure of the run's session."""
        return await self._stopper.stop(found)

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
        return self._launcher.held_here()

    # --- internals ---

    async def idle(self) -> None:
        """Return once the work runs asked for after they ended (erasures) is done."""
        await self._launcher.idle()

    def _committed(self, run_id: str, seq: int) -> None:
        self._launcher.committed(run_id, seq)
        self.feed.notify(run_id, seq)

    def fenced(self, run_id: str) -> None:
        """Another instance took this run over: stop executing it here without writing anything more."""
        if self._launcher.fence(run_id):
            self.feed.wake(run_id)

    def check_webhook(self, options: GraphRun) -> None:
        """Refuse (422 ``webhook_not_allowed``) a run whose ``webhook`` may not be called (``api.graph_runs``)."""
        self._webhooks.check(options)

    def _refuse_when_closing(self) -> None:
        if self.closing:
            raise RunsUnavailable("The service is shutting down; try again shortly.")


def _why(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _for_session(session_id: str | None) -> str:
    return f" in session {session_id}." if session_id else "."
