"""The shared event log's commits: one pipelined round trip per batch of the writer's, one ``APPEND`` script per run
in it (``redis_scripts``), retried, unchanged and in order, until Redis answers again."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import NoScriptError

from agent.stores import is_store_failure
from api.runs.log.records import EncodedRecord, StoredEvent, where_event
from api.runs.log.redis_entries import entry_blob
from api.runs.log.redis_scripts import APPEND

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from agent import Sealer
    from api.runs.log.reachability import Reachability
    from api.runs.log.redis_keys import RunKeys

__all__ = ("RETRY_FIRST_S", "RETRY_MAX_S", "RedisAppender", "RunBatch", "group")

RETRY_FIRST_S = 0.05
RETRY_MAX_S = 2.0


class RunBatch:
    """One run's part of a batch: its events and its newest record."""

    __slots__ = ("entry", "events", "record", "topology")

    def __init__(self) -> None:
        self.events: list[StoredEvent] = []
        self.record: EncodedRecord | None = None
        self.entry = b""
        """The stream entry holding ``events``, sealed once: a retried batch sends the same bytes."""
        self.topology = b""
        """The topology's envelope, for the run's hash, when ``events`` begin with it."""


def group(batch: list[tuple[str, StoredEvent | EncodedRecord]]) -> dict[str, RunBatch]:
    runs: dict[str, RunBatch] = {}
    for run_id, op in batch:
        run = runs.get(run_id)
        if run is None:
            run = runs[run_id] = RunBatch()
        if isinstance(op, EncodedRecord):
            run.record = op
        else:
            run.events.append(op)
    return runs


class RedisAppender:
    def __init__(
        self,
        redis: Redis,
        keys: RunKeys,
        *,
        instance: str,
        lease_ms: int,
        replay_window: int,
        sealer: Sealer | None,
        reachability: Reachability,
    ) -> None:
        self._redis = redis
        self._append = redis.register_script(APPEND)
        self._keys = keys
        self._instance = instance
        self._lease_ms = lease_ms
        self._window = replay_window
        """How many events a run's stream keeps (``APPEND`` trims the rest, the topology aside)."""
        self._sealer = sealer
        self._reachability = reachability

    async def commit(self, runs: dict[str, RunBatch]) -> dict[str, tuple[bool, int]]:
        """Commit the batch, retried until Redis takes it; each run's outcome: fenced, and its last seq."""
        self._encode_entries(runs)  # once: a retried batch sends the same bytes (APPEND skips them)
        delay = RETRY_FIRST_S
        while True:
            try:
                outcomes = await self._commit(runs)
            except Exception as exc:
                if not is_store_failure(exc):
                    raise
                self._reachability.failing(exc, "Redis")
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
                continue
            self._reachability.recovered("Redis")
            return outcomes

    def _encode_entries(self, runs: dict[str, RunBatch]) -> None:
        for run_id, run in runs.items():
            events = run.events
            if not events:
                continue
            run.entry = entry_blob(run_id, events, self._sealer)
            if events[0].seq == 1:
                envelope = events[0].envelope
                run.topology = envelope if self._sealer is None else self._sealer.seal(envelope, where_event(run_id, 1))

    async def _commit(self, runs: dict[str, RunBatch]) -> dict[str, tuple[bool, int]]:
        """``APPEND`` for each run, by its hash in one pipeline: no ``SCRIPT EXISTS`` round trip before each
        commit, and the script loaded again only when Redis has lost it (a restart, ``SCRIPT FLUSH``)."""
        try:
            replies = await self._append_all(runs)
        except NoScriptError:
            await self._redis.script_load(APPEND)
            replies = await self._append_all(runs)
        return {run_id: (reply[0] == b"fenced", int(reply[1])) for run_id, reply in zip(runs, replies, strict=True)}

    async def _append_all(self, runs: dict[str, RunBatch]) -> list[Any]:
        keys = self._keys
        now_ms = time.time_ns() // 1_000_000
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, run in runs.items():
                record, events = run.record, run.events
                pipe.evalsha(
                    self._append.sha,
                    4,
                    keys.run(run_id),
                    keys.events(run_id),
                    keys.lease(run_id),
                    keys.running,
                    keys.prefix,
                    run_id,
                    self._instance,
                    self._window,
                    self._lease_ms,
                    record.data if record is not None else b"",
                    record.status if record is not None else "",
                    record.session_id if record is not None else "",
                    events[0].seq if events else 0,
                    events[-1].seq if events else 0,
                    run.entry,
                    run.topology,
                    now_ms,
                )
            return await pipe.execute()
