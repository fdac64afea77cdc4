"""The thread TTL of ``langgraph.json`` (``checkpointer.ttl``, strategy ``delete``): idle threads are deleted whole.

A thread (a session) is idle when none of its runs is unfinished (``pending``, running, waiting at an interrupt)
and nothing happened in it for ``default_ttl`` minutes: its last run ended before then, and its thread record (if
it has one) was last used before then. Every ``sweep_interval_minutes`` one instance (with shared stores, the one
that takes the turn first, as retention does) removes such threads as an erasure removes a session: checkpoints,
interactions and feedback, runs and events, the thread and its owner (``StoreEraser.forget``), each held while it
goes (``StoreEraser.holding``) and checked again once held, so a turn begun meanwhile keeps its thread.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from agent.stores import is_store_failure
from api.runs.erasure import Forgotten
from api.runs.log.ownership import SessionAccess
from api.runs.log.protocols import Forgetting, ThreadStore
from api.runs.log.records import FINISHED
from api.runs.retention import cutoff
from api.stopping import stop_task

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent import Clock
    from agent.graphs import ThreadTtl
    from api.runs.cluster.protocol import Cluster
    from api.runs.erasure import StoreEraser
    from api.runs.log.records import RunRecord

__all__ = ("ExpiringLog", "ThreadExpiry")

logger = logging.getLogger(__name__)

_BATCH = 100
"""Threads removed at a time (and held together)."""
_EVERY_THREAD = SessionAccess(owner=None, any_session=True)


class ExpiringLog(Forgetting, ThreadStore, Protocol):
    """What the sweep reads: the idle sessions, the thread records, and the runs to check again."""

    async def load_run(self, run_id: str) -> RunRecord | None:
        """The run's record; None once it is gone."""
        ...


class ThreadExpiry:
    def __init__(
        self, log: ExpiringLog, eraser: StoreEraser, ttl: ThreadTtl, *, clock: Clock, cluster: Cluster | None
    ) -> None:
        self._log = log
        self._eraser = eraser
        self._idle_s = ttl.idle_s
        self._interval_s = ttl.sweep_interval_s
        self._clock = clock
        self._cluster = cluster
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._forever(), name="thread-ttl")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)

    async def sweep_once(self) -> Forgotten:
        """Remove the threads idle for longer than the TTL, if it is this instance's turn; what went."""
        if self._cluster is not None and not await self._cluster.take_turn("thread-ttl", self._interval_s):
            return Forgotten()
        before = cutoff(self._clock.now_ns(), self._idle_s)
        forgotten = Forgotten()
        while True:
            idle = await self._log.idle_sessions(before, _BATCH)
            done = await self._expire(idle, before)
            forgotten += done
            if len(idle) < _BATCH or not done.sessions:  # the rest was used since: the next sweep looks again
                break
            await asyncio.sleep(0)  # the service goes on serving between batches
        threads = await self._log.search_threads(_EVERY_THREAD)
        old = [thread.thread_id for thread in threads if thread.updated_at < before]
        with_runs = await self._log.session_runs(old) if old else {}
        unused = [thread_id for thread_id in old if thread_id not in with_runs]  # never run: idle_sessions omits them
        for start in range(0, len(unused), _BATCH):
            forgotten += await self._expire(unused[start : start + _BATCH], before)
        if forgotten.sessions:
            await self._eraser.compact()
            logger.info(
                "thread TTL removed %d threads (%d runs, %d events, %d interactions)",
                forgotten.sessions,
                forgotten.runs,
                forgotten.events,
                forgotten.interactions,
            )
        return forgotten

    async def _expire(self, session_ids: Sequence[str], before: str) -> Forgotten:
        if not session_ids:
            return Forgotten()
        async with self._eraser.holding(session_ids):
            runs = await self._log.session_runs(session_ids)
            expired = [s for s in session_ids if await self._idle(s, runs.get(s, []), before)]
            if not expired:
                return Forgotten()
            return await self._eraser.forget([(run_id, s) for s in expired for run_id in runs.get(s, [])], expired)

    async def _idle(self, session_id: str, run_ids: list[str], before: str) -> bool:
        """Whether the held session is still idle: a run begun or a thread used before the hold keeps it."""
        thread = await self._log.load_thread(session_id)
        if thread is None and not run_ids:
            return False  # gone already
        if thread is not None and thread.updated_at >= before:
            return False
        for run_id in run_ids:
            record = await self._log.load_run(run_id)
            if record is not None and (record.snapshot.status not in FINISHED or record.snapshot.updated_at >= before):
                return False
        return True

    async def _forever(self) -> None:
        while True:
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_store_failure(exc):
                    logger.error("the thread TTL could not sweep: a store is unreachable (%s)", type(exc).__name__)
                else:
                    logger.exception("the thread TTL could not sweep")
            await asyncio.sleep(self._interval_s)
