"""Retention: the background purge of what finished more than ``HARNESS_RETENTION_DAYS`` ago.

Every ``HARNESS_PURGE_INTERVAL_S`` one instance (with shared stores, the one that takes the turn first)
purges in batches of ``HARNESS_PURGE_BATCH`` runs (``StoreEraser.purge``), yielding between them so the
service goes on serving. Runs that wait for a human or still run are never purged, whatever their age.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from agent import format_timestamp
from agent.stores import is_store_failure
from api.stopping import stop_task

if TYPE_CHECKING:
    from agent import Clock
    from api.runs.cluster.protocol import Cluster
    from api.runs.erasure import StoreEraser
    from api.runs.settings import RunSettings

__all__ = ("RetentionLoop", "cutoff")

logger = logging.getLogger(__name__)

_DAY_S = 86_400


def cutoff(now_ns: int, older_than_s: float) -> str:
    """The RFC 3339 time before which what finished is older than ``older_than_s``."""
    return format_timestamp(now_ns - round(older_than_s * 10**9))


class RetentionLoop:
    def __init__(self, eraser: StoreEraser, settings: RunSettings, *, clock: Clock, cluster: Cluster | None) -> None:
        assert settings.retention_days is not None, "retention is on"
        self._eraser = eraser
        self._older_than_s = settings.retention_days * _DAY_S
        self._interval_s = settings.purge_interval_s
        self._batch = settings.purge_batch
        self._clock = clock
        self._cluster = cluster
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._forever(), name="retention")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)

    async def purge_once(self) -> None:
        if self._cluster is not None and not await self._cluster.take_turn("purge", self._interval_s):
            return
        before = cutoff(self._clock.now_ns(), self._older_than_s)
        forgotten = await self._eraser.purge(before, self._batch)
        if forgotten.runs or forgotten.interactions:
            logger.info(
                "retention purged %d runs, %d events, %d sessions, %d interactions",
                forgotten.runs,
                forgotten.events,
                forgotten.sessions,
                forgotten.interactions,
            )

    async def _forever(self) -> None:
        while True:
            try:
                await self.purge_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_store_failure(exc):
                    logger.error("retention could not purge: a store is unreachable (%s)", type(exc).__name__)
                else:
                    logger.exception("retention could not purge")
            await asyncio.sleep(self._interval_s)
