"""The run store as ``harness eval capture`` reads it (``agent.evaluation.capture.RunSource``).

``agent`` does not import ``api``, so the service's ``harness`` hands the command this source: the stores opened
as ``harness purge`` opens them (the embedded SQLite log, or Redis and PostgreSQL, from the same settings as
``harness serve``), a run loaded as its record and its committed envelopes, with the answers to its interrupts,
which the log does not hold, read from its thread's checkpoints (``api.runs.run_inputs``).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import msgspec

from agent.evaluation import CapturedRun, CaptureError
from agent.stores import open_stores
from api.runs.run_inputs import run_inputs
from api.runs.stores import open_run_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from langgraph.checkpoint.base import BaseCheckpointSaver

    from api.runs.log.protocols import EventLog
    from api.runs.settings import RunSettings

__all__ = ("StoreRunSource", "open_capture_source")

_NOTHING_TRIMMED = 1
"""What ``EventStore.read`` reports as trimmed when the log keeps every event (the topology, seq 1, is kept)."""


class StoreRunSource:
    """Runs as the service's stores keep them: the log's record and events, the thread's checkpoints."""

    def __init__(self, log: EventLog, checkpointer: BaseCheckpointSaver[Any]) -> None:
        """``log``: opened."""
        self._log = log
        self._checkpointer = checkpointer

    async def load_run(self, run_id: str) -> CapturedRun | None:
        record = await self._log.load_run(run_id)
        if record is None:
            return None
        events, trimmed = await self._log.read(run_id, 0)
        if trimmed > _NOTHING_TRIMMED:
            raise CaptureError(
                f"run {run_id} has lost its events up to {trimmed} to the replay window; only a whole run is captured"
            )
        snapshot = record.snapshot
        given = await run_inputs(self._checkpointer, snapshot.session_id, run_id)
        return CapturedRun(
            run_id=run_id,
            status=snapshot.status,
            owner=record.owner,
            graph_id=record.graph.graph_id if record.graph is not None else None,
            envelopes=[msgspec.json.decode(event.envelope) for event in events],
            resumes=given.resumes,
        )


@asynccontextmanager
async def open_capture_source(settings: RunSettings) -> AsyncIterator[StoreRunSource]:
    """The stores of ``settings`` opened for reading runs, closed on leaving."""
    async with open_stores(settings.agent) as stores, open_run_stores(settings, stores) as (log, _):
        await log.open(lambda run_id, seq: None, lambda run_id: None)
        try:
            yield StoreRunSource(log, stores.checkpointer)
        finally:
            await log.close()
