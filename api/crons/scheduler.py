"""The scheduler every instance runs: it claims the due firings (``CronStore.claim_due``: each firing is taken by one
instance, whatever their number) and starts each one's run as the cron's owner, through the path every run takes.

A cron on a thread enqueues its run there (``run_on_thread``, the Agent Server's default for a busy thread), or
applies the ``multitask_strategy`` it was made with: ``reject`` skips a firing that finds the thread busy,
``interrupt`` and ``rollback`` end the busy run first. A cron without a thread starts each firing on a new thread
whose id is derived from the cron and the firing, and with ``on_run_completed: delete`` removes it once its run has
ended (by the instance that fired it; one that dies first leaves it to the thread TTL).

Missed firings (every instance down): one catch-up firing, then the schedule from now on, never a burst: a claim
moves ``next_run_ms`` to the first firing after now, not after the missed one. A cron disabled and enabled again
gets no catch-up firing: it is scheduled from the moment it is enabled (``CronBook.update``).

Firings are claimed one at a time, and a claim's lease is renewed while its run starts (which may take longer than
the lease: ending a busy run for ``interrupt`` or ``rollback`` waits up to ``run_lease_s`` + 15 s), so that no other
instance takes the firing again, finds no run yet, and starts a second one.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import TYPE_CHECKING

from agent.stores import is_store_failure
from api.agent_protocol.requests import read_run_request
from api.auth import Principal
from api.crons.book import next_firing, run_request
from api.crons.schedule import from_ms
from api.graph_runs import run_on_thread
from api.runs.errors import SessionBusy, SessionNotFound
from api.runs.log.records import FINISHED
from api.stopping import stop_task

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent import Clock
    from agent.graphs import GraphRegistry
    from api.crons.base import CronRecord, CronStore
    from api.runs.erasure import SessionErasure
    from api.runs.registry import RunRegistry

__all__ = ("CRON_FIRING_KEY", "CRON_ID_KEY", "CronScheduler", "firing_thread_id")

logger = logging.getLogger(__name__)

CRON_ID_KEY = "cron_id"
CRON_FIRING_KEY = "cron_firing"
"""The metadata a cron's run carries: its cron, and the firing (its scheduled time, RFC 3339) it was started for."""
_BATCH = 50
_DELETE_POLL_S = 0.5
_LETTERS = str.maketrans("0123456789", "ghijklmnop")


class CronScheduler:
    def __init__(
        self,
        store: CronStore,
        runs: RunRegistry,
        erasure: SessionErasure,
        *,
        clock: Clock,
        tick_s: float,
        lease_s: float,
        counted: Callable[[str], None] = lambda outcome: None,
    ) -> None:
        self._store = store
        self._runs = runs
        self._graphs: GraphRegistry = runs.graphs
        self._erasure = erasure
        self._clock = clock
        self._tick_s = tick_s
        self._lease_ms = int(lease_s * 1000)
        self._counted = counted
        """Each firing's outcome (``started``, ``queued``, ``skipped``, ``failed``), for /metrics."""
        self._task: asyncio.Task[None] | None = None
        self._cleanups: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._forever(), name="crons")

    async def stop(self) -> None:
        for task in [*self._cleanups, *([self._task] if self._task is not None else [])]:
            await stop_task(task)

    async def tick(self) -> int:
        """Claim the due firings one at a time, starting each one's run before the next is claimed (up to
        ``_BATCH``); how many were claimed."""
        for claimed in range(_BATCH):
            found = await self._store.claim_due(self._now_ms(), self._lease_ms, next_firing, 1)
            if not found:
                return claimed
            await self._start(found[0])
        return _BATCH

    async def _start(self, record: CronRecord) -> None:
        """Start the claimed firing's run, its lease renewed meanwhile, then clear its mark."""
        firing_ms = record.firing_ms
        assert firing_ms is not None
        holding = asyncio.create_task(self._hold(record.cron_id, firing_ms), name=f"cron-lease-{record.cron_id}")
        try:
            outcome = await self._fire(record, firing_ms)
        except Exception as exc:
            if is_store_failure(exc):
                raise  # the mark stays: the firing is taken again once its lease runs out
            logger.exception("cron %s could not start its run for %s", record.cron_id, from_ms(firing_ms))
            outcome = "failed"
        finally:
            await stop_task(holding)
        self._counted(outcome)
        await self._store.fired(record.cron_id, firing_ms)

    async def _hold(self, cron_id: str, firing_ms: int) -> None:
        """Renew the firing's lease every third of it until cancelled: a start slower than the lease keeps it."""
        while True:
            await asyncio.sleep(self._lease_ms / 3000)
            try:
                await self._store.renew(cron_id, firing_ms, self._now_ms() + self._lease_ms)
            except Exception as exc:  # tried again a third of the lease later; the start goes on meanwhile
                logger.warning("cron %s: its lease could not be renewed (%s)", cron_id, type(exc).__name__)

    def _now_ms(self) -> int:
        return self._clock.now_ns() // 1_000_000

    async def _fire(self, record: CronRecord, firing_ms: int) -> str:
        principal = Principal(subject=record.owner, account_id=record.account_id, user=record.auth_user)
        request = run_request(record.payload)
        requested = read_run_request(request, self._graphs, detached=True)
        options = requested.options
        firing = from_ms(firing_ms)
        options.metadata = {**options.metadata, CRON_ID_KEY: record.cron_id, CRON_FIRING_KEY: firing}
        thread_id = record.thread_id or firing_thread_id(record.cron_id, firing_ms)
        if record.retaken and await self._started_already(thread_id, record.cron_id, firing):
            return "skipped"
        strategy = request.multitask_strategy
        try:
            threads = self._runs.threads
            found = await run_on_thread(
                self._runs,
                threads if record.thread_id is not None else threads.narrowed(None, record.thread_metadata or None),
                requested.registered,
                thread_id,
                requested.input,
                strategy=strategy,
                options=options,
                principal=principal,
                create=record.thread_id is None,
            )
            run_id = found.run_id
            queued = strategy == "enqueue" and found.record.snapshot.status == "pending"
        except SessionBusy:
            logger.info("cron %s skipped its firing for %s: its thread is busy (reject)", record.cron_id, firing)
            return "skipped"
        except SessionNotFound:
            logger.info("cron %s is removed: its thread %s is gone", record.cron_id, thread_id)
            await self._store.delete(record.cron_id)
            return "skipped"
        if record.thread_id is None and record.on_run_completed == "delete":
            self._delete_when_done(thread_id, run_id, principal)
        return "queued" if queued else "started"

    async def _started_already(self, thread_id: str, cron_id: str, firing: str) -> bool:
        """Whether the thread has the run of this firing: a firing taken again after its instance died may have
        started it before."""
        for run_id in await self._runs.threads.run_ids(thread_id):
            found = await self._runs.find(run_id)
            graph = None if found is None else found.record.graph
            if graph is not None and (graph.metadata.get(CRON_ID_KEY), graph.metadata.get(CRON_FIRING_KEY)) == (
                cron_id,
                firing,
            ):
                return True
        return False

    def _delete_when_done(self, thread_id: str, run_id: str, principal: Principal) -> None:
        task = asyncio.create_task(self._delete_thread(thread_id, run_id, principal), name=f"cron-thread-{thread_id}")
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    async def _delete_thread(self, thread_id: str, run_id: str, principal: Principal) -> None:
        try:
            while True:
                found = await self._runs.find(run_id)
                if found is None:
                    return
                if found.current_snapshot().status in FINISHED:
                    break
                await asyncio.sleep(_DELETE_POLL_S)
            await self._erasure.erase_session(thread_id, principal)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.warning("could not delete thread %s of a cron's ended run", thread_id, exc_info=True)

    async def _forever(self) -> None:
        while True:
            try:
                claimed = _BATCH
                while claimed == _BATCH:  # a full batch: more may be due
                    claimed = await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_store_failure(exc):
                    logger.error("the cron scheduler could not claim: a store is unreachable (%s)", type(exc).__name__)
                else:
                    logger.exception("the cron scheduler could not claim")
            await asyncio.sleep(self._tick_s)


def firing_thread_id(cron_id: str, firing_ms: int) -> str:
    """The thread of a cron's firing without a thread of its own: the same for the same firing (so a firing taken
    again finds its run), of letters only (so no digit run passes for a card number, which a thread id may not)."""
    digest = hashlib.sha256(f"{cron_id}/{firing_ms}".encode()).hexdigest()[:32]
    return f"cron_{digest.translate(_LETTERS)}"
