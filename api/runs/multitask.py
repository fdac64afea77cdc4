"""What a run asked for on a busy thread does (the Agent Protocol's ``multitask_strategy``, double-texting).

``enqueue`` queues it (``pending``, ``api.runs.queue``) to start in order once the thread is free; ``interrupt`` ends
the thread's unfinished and queued runs first (``superseded``); ``rollback`` ends them and removes them with their
checkpoints, so the thread's state is as it was before them. A thread is held while it is cleared, as an erasure
holds it, so that no queued run starts on it (anywhere) from a state about to be taken back.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from api.runs.errors import NotTheOwner, RunFinished, RunNotPaused, SessionBusy
from api.runs.log.records import FINISHED
from api.runs.rollback import rewind
from api.runs.run import Run

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from agent.graphs import RegisteredGraph
    from api.runs.access import AccessPolicy
    from api.runs.erasure import LiveRuns, StoreEraser
    from api.runs.launcher import RunLauncher
    from api.runs.log.protocols import EventLog
    from api.runs.log.records import GraphRun, RunRecord
    from api.runs.principal import Principal
    from api.runs.webhook_expectations import WebhookExpectations

__all__ = ("Multitask",)

_POLL_S = 0.05
_ATTEMPTS = 3
"""How many times a run with ``interrupt`` or ``rollback`` clears its thread before it gives up (409): another
run asked for at the same moment may take the thread first."""


class Multitask:
    def __init__(
        self,
        runs: LiveRuns,
        log: EventLog,
        launcher: RunLauncher,
        eraser: StoreEraser,
        checkpointer: BaseCheckpointSaver[Any],
        *,
        access: AccessPolicy,
        webhooks: WebhookExpectations,
        lease_s: float,
    ) -> None:
        self._runs = runs
        """How a run is found and ended (``RunRegistry``)."""
        self._log = log
        self._launcher = launcher
        self._eraser = eraser
        """Holds a thread while it is cleared."""
        self._checkpointer = checkpointer
        self._access = access
        self._webhooks = webhooks
        self._lease_s = lease_s
        """How long a run executing elsewhere may take to hear that it is to end."""

    async def start(
        self,
        record: RunRecord,
        registered: RegisteredGraph,
        graph_input: Any,
        principal: Principal,
        *,
        new_thread: bool,
        interrupt_busy: bool,
        rollback_busy: bool,
    ) -> Run:
        """Start the run if its thread is free; a thread busy with another run (or with runs queued) is a 409, or,
        with ``interrupt_busy``, those runs are ended first, or, with ``rollback_busy``, ended and removed with their
        checkpoints (``roll_back``)."""
        thread_id = record.snapshot.session_id
        await self._webhooks.expect(record)
        access = self._access.session_access(principal)
        busy = await self._log.begin_run(record, access, new_session=new_thread)
        for _ in range(_ATTEMPTS if interrupt_busy or rollback_busy else 0):
            if busy is None:
                break
            await self._clear_thread(thread_id, roll_back=rollback_busy)
            busy = await self._log.begin_run(record, access)
        if busy is not None:
            await self._webhooks.unexpect(record)
            raise SessionBusy(
                f"Thread {thread_id} has run {busy} unfinished; wait for it, resume or cancel it, or ask for "
                "multitask_strategy enqueue, interrupt or rollback.",
                run_id=busy,
            )
        run = self._launcher.launch_new(record, registered, graph_input, principal)
        await asyncio.sleep(0)  # the graph starts now and waits on its checkpointer while the response is built
        return run

    async def enqueue(
        self, record: RunRecord, registered: RegisteredGraph, graph_input: Any, options: GraphRun, principal: Principal
    ) -> Run | RunRecord:
        """Start the run when its thread is free and nothing is queued before it; else queue it (``pending``, its
        input in its record) to start, in order, once the thread is free, on whichever instance finds it so first.
        The run, or its pending record."""
        await self._webhooks.expect(record)
        if await self._log.begin_run(record, self._access.session_access(principal)) is None:
            run = self._launcher.launch_new(record, registered, graph_input, principal)
            await asyncio.sleep(0)
            return run
        record.snapshot.status = "pending"
        options.input = graph_input
        await self._log.enqueue_run(record)
        await self._launcher.start_queued(record.snapshot.session_id)  # the thread's run may have ended meanwhile
        return self._launcher.live.get(record.run_id) or record

    async def roll_back(self, run_id: str, thread_id: str) -> None:
        """End the run and remove it: its checkpoints (the thread's state is as it was before it) and its record
        and events, as the Agent Server's ``rollback`` does. The thread is held meanwhile."""
        async with self._eraser.holding([thread_id]):
            await self._take_back(run_id, thread_id)

    async def cancel_rolling_back(self, found: Run | RunRecord, principal: Principal) -> None:
        """``cancel`` with ``action=rollback``: the run ends and is removed (``roll_back``)."""
        if not self._access.owns(principal, found.record):
            raise NotTheOwner("Only the subject who started a run may cancel it.")
        snapshot = found.current_snapshot()
        if snapshot.status in FINISHED:
            raise RunFinished(f"Run {snapshot.run_id} has already ended ({snapshot.status}).")
        await self.roll_back(snapshot.run_id, snapshot.session_id)

    async def _clear_thread(self, thread_id: str, *, roll_back: bool) -> None:
        """End the thread's unfinished run and its queued runs (``superseded``); with ``roll_back``, remove them too.
        The thread is held meanwhile, so that no queued run starts when the one before it ends."""
        async with self._eraser.holding([thread_id]):
            active = await self._log.active_run(thread_id)
            for run_id in [*([active] if active else []), *await self._log.queued_runs(thread_id)]:
                found = await self._runs.find(run_id)
                if found is None or found.current_snapshot().status in FINISHED:
                    continue  # ended meanwhile, or before (a queued run cancelled): not this run's to take back
                if roll_back:
                    await self._take_back(run_id, thread_id)
                else:
                    await self._end_run(run_id, "superseded")

    async def _take_back(self, run_id: str, thread_id: str) -> None:
        await self._end_run(run_id, "superseded")
        await rewind(self._checkpointer, thread_id, run_id)
        await self._log.erase_runs([(run_id, thread_id)])

    async def _end_run(self, run_id: str, reason: str) -> None:
        """End the run ``run_id`` (``reason`` when it executes here, ``cancelled`` else) and return once it has."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._lease_s + 15
        while (found := await self._runs.find(run_id)) is not None and found.current_snapshot().status not in FINISHED:
            if isinstance(found, Run) and not found.settled:
                found.abort(reason)
            with contextlib.suppress(RunFinished, RunNotPaused):
                await self._runs.stop(found)
            if loop.time() > deadline:
                raise SessionBusy(f"Run {run_id} did not end; try again.", run_id=run_id)
            await asyncio.sleep(_POLL_S)
