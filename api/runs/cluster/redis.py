"""This instance among the others, through Redis: leases, lost runs, cancels, shared followers, the live tail.

One maintenance loop, every third of ``HARNESS_RUN_LEASE_S``, renews the leases of the runs executing here
(a run whose lease was lost is stopped here at once), aborts the ones cancelled from elsewhere, ends the
runs whose executor died (``instance_lost``), and renews this instance's presence.
A control channel carries cancels and "a stream left" notices so that they act at once, not at the next
tick. Which instances follow a run is a hash per run, written as streams here start and stop following it
and counted only for instances that are present (``P:instance:<id>``, renewed once per period): an instance
holding ten thousand idle streams renews one key, not ten thousand.

One blocking ``XREAD`` over the streams of every run followed here but executing elsewhere wakes their
followers when another instance commits events (a run executing here wakes its followers as it commits: the
tail leaves it out).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, cast

from agent.stores import is_store_failure
from agent.stores.postgres import ping
from api.runs.cluster.redis_quota import RedisStreamQuota
from api.runs.log.redis_scripts import SUBSCRIBERS

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Coroutine

    from psycopg_pool import AsyncConnectionPool
    from redis.asyncio import Redis

    from api.runs.cluster.protocol import ClusterRun, LocalRuns
    from api.runs.log.redis import RedisEventLog
    from api.runs.log.redis_keys import RunKeys

__all__ = ("RedisCluster",)

logger = logging.getLogger(__name__)

_TAIL_BLOCK_MS = 1000
_IDLE_TAIL_BLOCK_MS = 5000
"""The tail's block when no run it watches executes here: a hold of idle streams costs one ``XREAD`` per block
(under the client's 10 s socket timeout); a change to the runs watched unblocks it at once."""
_TAIL_COUNT = 512
_LISTEN_POLL_S = 1.0
_RETRY_S = 0.5
_CANCEL_TTL_MS = 3_600_000


class RedisCluster:
    def __init__(
        self,
        redis: Redis,
        blocking: Redis,
        database: AsyncConnectionPool[Any],
        log: RedisEventLog,
        *,
        keys: RunKeys,
        instance: str,
        lease_s: float,
        streams_per_subject: int,
    ) -> None:
        self._redis = redis
        self._blocking = blocking
        """A client of its own for the blocking ``XREAD``, so it never holds up other commands."""
        self._database = database
        self._log = log
        self._keys = keys
        self._instance = instance
        self._lease_ms = round(lease_s * 1000)
        self._period_s = lease_s / 3
        self._subscribers = redis.register_script(SUBSCRIBERS)
        self._local: LocalRuns | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._followed: set[str] = set()
        """Runs streams on this instance follow."""
        self._tails: dict[str, int] = {}
        """The runs the live tail watches, with the last seq it reported of each."""
        self._tails_changed = asyncio.Event()
        self._reader_id: int | None = None
        """The Redis client id of the blocking connection, once known."""
        self._reading = False
        self._changes: dict[str, bool] = {}
        """Runs whose following here changed since the followers task last wrote them: followed or not, now."""
        self._changed = asyncio.Event()
        self._stopping = False
        self.streams = RedisStreamQuota(
            redis, prefix=keys.prefix, instance=instance, limit=streams_per_subject, ttl_ms=3 * self._lease_ms
        )
        """Open event streams per subject, counted across the instances."""

    @property
    def local(self) -> LocalRuns:
        assert self._local is not None, "the cluster is started with this instance's runs"
        return self._local

    async def start(self, local: LocalRuns) -> None:
        self._local = local
        self._tasks = [
            asyncio.create_task(self._forever(self._maintain, self._period_s), name="cluster-maintenance"),
            asyncio.create_task(self._forever(self._listen, 0), name="cluster-control"),
            asyncio.create_task(self._forever(self._tail, 0), name="cluster-tail"),
            asyncio.create_task(self._forever(self._apply_changes, 0), name="cluster-followers"),
        ]

    async def stop(self) -> None:
        self._stopping = True
        self._changed.set()  # wakes the followers task, which then sees the flag
        self._tails_changed.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            async with self._redis.pipeline(transaction=False) as pipe:
                for run_id in self._followed:
                    pipe.hdel(self._keys.subscribers(run_id), self._instance)
                pipe.delete(self._keys.instance(self._instance))
                await pipe.execute()

    async def check(self) -> None:
        await self._redis.ping()
        await ping(self._database)
        if self._log.unreachable:
            raise ConnectionError(f"the event log cannot write to {', '.join(sorted(self._log.unreachable))}")

    # --- what the registry asks ---

    async def request_cancel(self, run_id: str) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(self._keys.cancel(run_id), 1, px=_CANCEL_TTL_MS)
            pipe.publish(self._keys.control, f"cancel {run_id}")
            await pipe.execute()

    async def take_turn(self, task: str, period_s: float) -> bool:
        taken = await self._redis.set(
            f"{self._keys.prefix}:turn:{task}", self._instance, nx=True, px=max(1, round(period_s * 1000))
        )
        return bool(taken)

    def following(self, run_id: str, present: bool) -> None:
        self._changes[run_id] = present
        self._changed.set()

    def abort_unless_followed(self, run: ClusterRun) -> None:
        self._spawn(self._abort_unless_followed(run))

    # --- internals ---

    async def _abort_unless_followed(self, run: ClusterRun) -> None:
        if await self._followed_elsewhere(run.run_id):
            return  # kept alive by streams elsewhere; the maintenance loop looks again
        local = self.local
        if run.status == "running" and not local.followers(run.run_id):
            run.abort("client_disconnected")

    async def _followed_elsewhere(self, run_id: str) -> bool:
        others = await self._subscribers(
            keys=[self._keys.subscribers(run_id)], args=["count", self._instance, self._keys.prefix]
        )
        return int(others) > 0

    async def _be_present(self) -> None:
        """Renew this instance's presence; when Redis had lost it (a restart, a long stall), write again which
        runs streams here follow, which Redis may have lost with it."""
        known = await self._redis.set(self._keys.instance(self._instance), 1, px=self._lease_ms, get=True)
        if known is None and self._followed:
            async with self._redis.pipeline(transaction=False) as pipe:
                for run_id in self._followed:
                    await self._subscribers(
                        keys=[self._keys.subscribers(run_id)], args=["set", self._instance, ""], client=pipe
                    )
                await pipe.execute()

    async def _maintain(self) -> None:
        await self._be_present()
        local = self.local
        running = local.held_here()
        for run_id in await self._log.renew(running):
            run = local.live(run_id)
            if run is not None and run.settled:
                continue  # its pause or ending was committed meanwhile, which released the lease: not a takeover
            local.fenced(run_id)
        if running:
            cancelled = await self._redis.mget([self._keys.cancel(run_id) for run_id in running])
            for run_id, flag in zip(running, cancelled, strict=True):
                if flag is not None and (run := local.live(run_id)) is not None:
                    run.abort("cancelled")
        await local.end_lost_runs()
        for run in local.orphaned():
            if not await self._followed_elsewhere(run.run_id):
                local.start_grace(run.run_id)
        await self.streams.renew()

    async def _listen(self) -> None:
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self._keys.control)
            while not self._stopping:
                message = await pubsub.get_message(timeout=_LISTEN_POLL_S)
                if message is not None and message["type"] == "message":
                    self._on_control(message["data"].decode())
        finally:
            await asyncio.shield(pubsub.aclose())  # type: ignore[no-untyped-call,unused-ignore]  # typed from redis 8.2

    def _on_control(self, message: str) -> None:
        verb, _, run_id = message.partition(" ")
        local = self.local
        run = local.live(run_id)
        if run is None or run.settled:
            return
        if verb == "cancel":
            run.abort("cancelled")
        elif verb == "left" and run in local.orphaned():
            self._spawn(self._grace_unless_followed(run))

    async def _grace_unless_followed(self, run: ClusterRun) -> None:
        if not await self._followed_elsewhere(run.run_id):
            self.local.start_grace(run.run_id)

    async def _apply_changes(self) -> None:
        """Write every change of following since the last pass in one pipeline, then let the tail look again once.

        Ten thousand streams opening at once are a few large pipelines and a few new ``XREAD``s, not ten thousand
        of each (each ``XREAD`` names every run watched). A pass that cannot reach Redis keeps its changes for
        the next one; a newer change of the same run wins."""
        await self._changed.wait()
        self._changed.clear()
        if self._stopping:
            return
        changes, self._changes = self._changes, {}
        try:
            await self._write_changes(changes)
        except BaseException:
            self._changes = changes | self._changes
            self._changed.set()
            raise
        self._wake_tail()

    async def _write_changes(self, changes: dict[str, bool]) -> None:
        keys = self._keys
        for run_id, present in changes.items():
            # before the writes: a presence renewal that finds Redis lost it (_be_present) writes again what is
            # followed now, and must not bring back a run whose removal it overtakes
            if present:
                self._followed.add(run_id)
            else:
                self._followed.discard(run_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, present in changes.items():
                verb = "set" if present else "del"
                await self._subscribers(keys=[keys.subscribers(run_id)], args=[verb, self._instance, ""], client=pipe)
                if present:
                    pipe.hget(keys.run(run_id), "last_seq")
                else:
                    pipe.publish(keys.control, f"left {run_id}")
            replies = await pipe.execute()
        for (run_id, present), last_seq in zip(changes.items(), replies[1::2], strict=True):
            if not present:
                self._tails.pop(run_id, None)
                continue
            # the tail reads what comes after last_seq; what came before is the followers' to read from the log
            self._tails[run_id] = max(self._tails.get(run_id, 0), int(last_seq or 0))
            self.local.notify_followers(run_id, self._tails[run_id])

    def _wake_tail(self) -> None:
        """Make the live tail watch the changed set of runs now rather than after its block timeout."""
        self._tails_changed.set()
        if self._reading and self._reader_id is not None:
            self._spawn(self._unblock(self._reader_id))

    async def _unblock(self, reader_id: int) -> None:
        await self._redis.client_unblock(reader_id)

    async def _tail(self) -> None:
        self._tails_changed.clear()
        streams: dict[Any, Any] = {
            self._keys.events(run_id): f"{seq}-0"
            for run_id, seq in self._tails.items()
            if not self._executes_here(run_id)
        }
        block_ms = _TAIL_BLOCK_MS if len(streams) < len(self._tails) else _IDLE_TAIL_BLOCK_MS
        if not streams:
            # a run executing here wakes its followers as it commits; should it move, look again within the block
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._tails_changed.wait(), _TAIL_BLOCK_MS / 1000 if self._tails else None)
            return
        try:
            if self._reader_id is None:
                self._reader_id = await self._blocking.client_id()
            self._reading = True
            reply = await self._blocking.xread(streams, count=_TAIL_COUNT, block=block_ms)
        except Exception:
            self._reader_id = None  # a new connection has a new id
            raise
        finally:
            self._reading = False
        local = self.local
        for key, entries in cast("list[tuple[bytes, list[tuple[bytes, Any]]]]", reply or []):
            run_id = self._keys.run_id_of_events(key)
            last = int(entries[-1][0].split(b"-", 1)[0])
            if run_id in self._tails:
                self._tails[run_id] = max(self._tails[run_id], last)
            local.notify_followers(run_id, last)

    def _executes_here(self, run_id: str) -> bool:
        """The run executes on this instance, whose commits wake its followers here: the tail leaves it out."""
        run = self.local.live(run_id)
        return run is not None and not run.settled

    async def _forever(self, step: Callable[[], Awaitable[None]], period_s: float) -> None:
        """Run ``step`` again and again (every ``period_s``), surviving the stores' outages, until stopped.

        The stop flag, not only the cancellation, ends the loop: a Redis command interrupted by the
        cancellation may swallow it.
        """
        while not self._stopping:
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._stopping:
                    return
                if not is_store_failure(exc):
                    logger.exception("cluster task failed; retrying")
                await asyncio.sleep(_RETRY_S)
                continue
            if period_s and not self._stopping:
                await asyncio.sleep(period_s)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.append(task)
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)
        if not task.cancelled() and (exc := task.exception()) is not None and not is_store_failure(exc):
            logger.error("cluster task failed: %r", exc)
