"""Stopping a run, whoever asks (``cancel``, an erasure, an ``interrupt`` of its thread), wherever it stands.

A run running here is aborted; one running on another instance hears of it through the cluster; one waiting for a
person, or queued, is claimed here and ended with ``cancelled``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.endings import run_error, settled_snapshot
from api.runs.errors import RunFinished, RunNotPaused
from api.runs.log.records import FINISHED, PENDING
from api.runs.run import Run

if TYPE_CHECKING:
    from api.runs.cluster.protocol import Cluster
    from api.runs.launcher import RunLauncher
    from api.runs.log.protocols import EventLog
    from api.runs.log.records import RunRecord
    from contracts import RunSnapshot

__all__ = ("RunStopper",)


class RunStopper:
    def __init__(self, log: EventLog, launcher: RunLauncher, cluster: Cluster | None) -> None:
        self._log = log
        self._launcher = launcher
        self._cluster = cluster

    async def stop(self, found: Run | RunRecord) -> RunSnapshot:
        """End the run with ``cancelled``; the run as it stands then."""
        if isinstance(found, Run) and not found.settled:
            found.abort("cancelled")
            return await settled_snapshot(found, found.last_seq)
        run_id = found.run_id
        if isinstance(found, Run):
            await self._log.flush()  # it just paused or ended: settle that first
        record = await self._log.load_run(run_id)
        assert record is not None, "the run was found"
        status = record.snapshot.status
        if status in FINISHED:
            raise RunFinished(f"Run {run_id} has already ended ({status}).")
        if status == PENDING:
            return await self._cancel_queued(run_id)
        if status == "running":
            if self._cluster is None:
                raise RunNotPaused(f"Run {run_id} is starting or ending; try again.")
            await self._cluster.request_cancel(run_id)
            return record.snapshot
        claimed = await self._log.claim_run(run_id)
        if claimed is None or claimed.snapshot.status != "waiting":
            if claimed is not None:
                await self._log.release_run(run_id)
            raise RunNotPaused(f"Run {run_id} is being decided right now; try again.")
        run = self._launcher.track(claimed)
        cursor = run.last_seq
        run.fail(run_error("cancelled", "The run was cancelled.", False), status="cancelled")
        return await settled_snapshot(run, cursor)

    async def _cancel_queued(self, run_id: str) -> RunSnapshot:
        """End a run that waits in its thread's queue, before it starts (``cancelled``)."""
        claimed = await self._log.claim_run(run_id)
        if claimed is None or claimed.snapshot.status != PENDING:
            if claimed is not None:
                await self._log.release_run(run_id)
            raise RunNotPaused(f"Run {run_id} is starting right now; try again.")
        if claimed.graph is not None:
            claimed.graph.input = None
        run = self._launcher.track(claimed)
        run.fail(run_error("cancelled", "The run was cancelled before it started.", False), status="cancelled")
        return await settled_snapshot(run, 0)
