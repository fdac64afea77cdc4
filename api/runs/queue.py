"""The runs queued behind their thread's run (``multitask_strategy`` ``enqueue``): started in order, on any instance.

A queued run is a ``pending`` record in the event log, at the end of its session's queue (``RunStore.enqueue_run``),
holding its input. It starts once its thread has no unfinished run: at once when this instance ends the thread's
run, and otherwise when this loop looks, every ``poll_s`` (a run ended on another instance, a waiting run was
cancelled, an instance was lost, this one restarted). Starting is one atomic step of the log's
(``RunStore.start_queued``), so of the instances that look at once exactly one starts the run, and never while
the thread has another.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from agent.stores import is_store_failure
from api.stopping import stop_task

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = ("QueueLoop", "QueuedSessions")

logger = logging.getLogger(__name__)

POLL_S = 0.5


class QueuedSessions(Protocol):
    """The part of the event log the loop reads."""

    async def queued_sessions(self) -> list[str]: ...


class QueueLoop:
    def __init__(
        self, log: QueuedSessions, start: Callable[[str], Awaitable[object]], *, poll_s: float = POLL_S
    ) -> None:
        self._log = log
        self._start = start
        """Starts the first queued run of a session if its thread is free (``RunRegistry.start_queued``)."""
        self._poll_s = poll_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._forever(), name="run-queue")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)

    async def start_all(self) -> None:
        """Start the first queued run of every session whose thread is free."""
        for session_id in await self._log.queued_sessions():
            await self._start(session_id)

    async def _forever(self) -> None:
        while True:
            try:
                await self.start_all()
            except Exception as exc:
                if not is_store_failure(exc):
                    logger.exception("starting the queued runs failed; retrying")
            await asyncio.sleep(self._poll_s)
