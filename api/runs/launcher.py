"""Launching runs: each executes its graph as its own task on this instance, never inside a request handler.

The launcher holds the runs executing here (``live``) from the moment one is started or claimed until the event
that settles it is committed; then the thread's next queued run starts, and the webhook of the run, if it asked for
one, is delivered.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import msgspec

from agent import format_timestamp
from agent.graphs import RunContext
from api.runs.disconnects import Disconnects
from api.runs.endings import run_error
from api.runs.executor import execute_graph
from api.runs.log.records import PENDING, RunRecord
from api.runs.principal import Principal
from api.runs.run import Run
from api.runs.run_options import graph_run_config
from api.runs.stream.frames import EnvelopeEncoder
from contracts import RunSnapshot

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from langchain_core.runnables import RunnableConfig

    from agent import Clock, IdFactory
    from agent.graphs import GraphRegistry, RegisteredGraph
    from api.runs.cluster.protocol import Cluster
    from api.runs.log.protocols import EventLog
    from api.runs.log.records import GraphRun
    from api.runs.settings import RunSettings
    from api.runs.webhook_expectations import WebhookExpectations

__all__ = ("RunLauncher",)

logger = logging.getLogger(__name__)

_LOST = {
    "server_restarted": "The server restarted while this run was in progress.",
    "instance_lost": "The instance executing this run stopped answering; the run can be started again.",
}


class RunLauncher:
    def __init__(
        self,
        log: EventLog,
        settings: RunSettings,
        *,
        clock: Clock,
        ids: IdFactory,
        graphs: GraphRegistry,
        cluster: Cluster | None,
        webhooks: WebhookExpectations,
        closing: Callable[[], bool],
        erase_account: Callable[[str, Run], Coroutine[Any, Any, None]],
    ) -> None:
        """``closing``: whether the service shuts down (no queued run starts then); ``erase_account``: the erasure
        a run that deleted its account asks for once it ends."""
        self._log = log
        self._settings = settings
        self._clock = clock
        self._ids = ids
        self._graphs = graphs
        self._cluster = cluster
        self._webhooks = webhooks
        self._closing = closing
        self._erase_account = erase_account
        self.envelopes = EnvelopeEncoder()
        self.live: dict[str, Run] = {}
        """The runs this instance executes, or has settled with the settling event not committed yet."""
        self.disconnects = Disconnects(self.live, grace_s=settings.disconnect_grace_s, cluster=cluster)
        self._background: set[asyncio.Task[None]] = set()
        """Work a run asked for after it ended (the erasure a deleted account asks for)."""

    def track(self, record: RunRecord) -> Run:
        """The run of ``record``, live here from now on."""
        run = Run(
            record,
            log=self._log,
            encoder=self.envelopes,
            clock=self._clock,
            window=self._settings.replay_window,
        )
        self.live[run.run_id] = run
        return run

    def new_record(self, session_id: str, principal: Principal, *, graph: GraphRun | None = None) -> RunRecord:
        now = format_timestamp(self._clock.now_ns())
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

    def launch_new(self, record: RunRecord, registered: RegisteredGraph, graph_input: Any, principal: Principal) -> Run:
        """Track a run that begins (its topology first) and execute it."""
        run = self.track(record)
        run.emit(msgspec.structs.replace(registered.topology, session_id=record.snapshot.session_id))
        self.launch_graph(run, registered, graph_input, principal)
        return run

    def launch_graph(
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
        self.disconnects.launched(run)

    async def end_lost_runs(self) -> None:
        """End, with a retryable error, every run recorded as running whose executor is gone."""
        code = "instance_lost" if self._cluster is not None else "server_restarted"
        for run_id in await self._log.lost_runs():
            if run_id in self.live:
                continue  # ours: a lease renewal that came late, not a lost executor
            record = await self._log.claim_run(run_id)
            if record is None:
                continue
            if record.snapshot.status not in ("running", PENDING):  # pending: started, not recorded running yet
                await self._log.release_run(run_id)
                continue
            logger.warning("run %s lost its executor; ending it with %s", run_id, code)
            self.track(record).fail(run_error(code, _LOST[code], True))

    async def start_queued(self, session_id: str) -> Run | None:
        """Start the first queued run of the session if its thread is free now; the run started, if one was."""
        if self._closing():
            return None
        record = await self._log.start_queued(session_id)
        if record is None:
            return None
        graph = record.graph
        assert graph is not None, "only runs of registered graphs are queued"
        graph_input, graph.input = graph.input, None
        snapshot = record.snapshot
        snapshot.status = "running"
        snapshot.updated_at = format_timestamp(self._clock.now_ns())
        registered = self._graphs.get(graph.graph_id)
        if registered is None:
            run = self.track(record)
            run.fail(run_error("graph_not_served", f"Graph {graph.graph_id!r} is no longer served.", False))
            return run
        self._log.save_run(record)
        principal = Principal(subject=record.owner, account_id=record.account_id)
        return self.launch_new(record, registered, graph_input, principal)

    def committed(self, run_id: str, seq: int) -> None:
        """The run's events are committed up to ``seq``: a run settled by then is no longer live here."""
        run = self.live.get(run_id)
        if run is not None:
            run.committed(seq)
            if run.settled and seq >= run.last_seq:
                self._webhooks.ended(run)
                del self.live[run_id]

    def fence(self, run_id: str) -> bool:
        """Another instance took this run over: stop executing it here without writing anything more. Whether it
        was live here."""
        run = self.live.pop(run_id, None)
        if run is None:
            return False
        logger.warning("run %s was taken over by another instance; stopping it here", run_id)
        run.fenced = True
        run.abort("fenced")
        run.wake()
        return True

    def held_here(self) -> list[str]:
        """Runs this instance writes: executing, or settled but with the settling event not committed yet."""
        return [run_id for run_id, run in self.live.items() if not run.fenced]

    async def idle(self) -> None:
        """Return once the work runs asked for after they ended (erasures) is done."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def _execute(
        self, run: Run, registered: RegisteredGraph, graph_input: Any, config: RunnableConfig, context: RunContext
    ) -> None:
        deleted = await execute_graph(run, registered, graph_input, config, clock=self._clock, context=context)
        if run.finished and not run.fenced and not self._closing():
            self._in_background(self._start_next(run), name=f"start-next-{run.run_id}")
        if deleted is not None:
            self._in_background(self._erase_account(deleted, run), name=f"erase-account-{run.run_id}")

    def _in_background(self, work: Coroutine[Any, Any, None], *, name: str) -> None:
        task = asyncio.create_task(work, name=name)
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
