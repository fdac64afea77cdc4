"""The run core's background loops: queued runs started, old runs purged, idle threads deleted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.queue import QueueLoop
from api.runs.retention import RetentionLoop
from api.runs.thread_expiry import ThreadExpiry

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agent import Clock
    from agent.graphs import ThreadTtl
    from api.runs.cluster.protocol import Cluster
    from api.runs.erasure import StoreEraser
    from api.runs.log.protocols import EventLog
    from api.runs.settings import RunSettings

__all__ = ("Upkeep",)


class Upkeep:
    def __init__(
        self,
        log: EventLog,
        eraser: StoreEraser,
        settings: RunSettings,
        *,
        thread_ttl: ThreadTtl | None,
        start_queued: Callable[[str], Awaitable[object]],
        clock: Clock,
        cluster: Cluster | None,
    ) -> None:
        """``thread_ttl``: ``langgraph.json``'s ``checkpointer.ttl``; ``start_queued``: starts the first queued run of
        a session if its thread is free."""
        self._retention = (
            RetentionLoop(eraser, settings, clock=clock, cluster=cluster)
            if settings.retention_days is not None
            else None
        )
        self._thread_expiry = (
            ThreadExpiry(log, eraser, thread_ttl, clock=clock, cluster=cluster) if thread_ttl is not None else None
        )
        """Deletes the threads idle for longer than ``thread_ttl``."""
        self._queue = QueueLoop(log, start_queued)
        """Starts the queued runs of threads that are free, on whichever instance looks first."""

    def start(self) -> None:
        if self._retention is not None:
            self._retention.start()
        if self._thread_expiry is not None:
            self._thread_expiry.start()
        self._queue.start()

    async def stop(self) -> None:
        await self._queue.stop()
        if self._retention is not None:
            await self._retention.stop()
        if self._thread_expiry is not None:
            await self._thread_expiry.stop()
