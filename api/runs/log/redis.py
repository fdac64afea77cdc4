"""The shared event log: one Redis stream per run, its record beside it, and leases that fence writers.

Appends are queued and committed in batches like the embedded log's (``redis_appends``): one pipelined round trip
per batch, one ``APPEND`` script per run in it (see ``redis_scripts``), which adds that run's events as one stream
entry (``redis_entries``). A batch that cannot reach Redis is retried, unchanged and in order, until Redis answers
again; events count as published only once Redis has them. Records committed in a batch are then copied to
PostgreSQL (``RunArchive``) by a task of their own (``redis_archiving``).

Who owns a session is PostgreSQL's to say (``SessionOwners``); ``BEGIN`` checks Redis's copy of it, and asks
for PostgreSQL's answer when Redis has none (``redis_begin``). Erasure removes from both (``redis_erasure``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, cast

from agent.stores import check_key
from api.runs.errors import SessionBusy, SessionNotFound
from api.runs.log.reachability import Reachability
from api.runs.log.records import EncodedRecord, StoredEvent, envelope_of_frame, open_record, where_event
from api.runs.log.redis_appends import RETRY_MAX_S, RedisAppender, group
from api.runs.log.redis_archiving import ArchiveCopier
from api.runs.log.redis_begin import RedisBegin
from api.runs.log.redis_entries import entry_events
from api.runs.log.redis_erasure import RedisErasure
from api.runs.log.redis_key_check import RedisKeyCheck
from api.runs.log.redis_scripts import CLAIM, ENQUEUE, HOLD, RELEASE, RENEW, START_QUEUED
from api.runs.log.threads import encode_thread, open_thread
from api.runs.log.writer import BatchWriter

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from redis.asyncio import Redis

    from agent import Sealer
    from api.runs.log.archive import RunArchive
    from api.runs.log.ownership import SessionAccess
    from api.runs.log.records import RunRecord
    from api.runs.log.redis_keys import RunKeys
    from api.runs.log.session_owners import SessionOwners
    from api.runs.log.threads import ThreadRecord

__all__ = ("RedisEventLog",)

logger = logging.getLogger(__name__)


class RedisEventLog:
    def __init__(
        self,
        redis: Redis,
        archive: RunArchive,
        owners: SessionOwners,
        *,
        keys: RunKeys,
        instance: str,
        lease_s: float,
        replay_window: int,
        sealer: Sealer | None = None,
    ) -> None:
        self._redis = redis
        self._archive = archive
        self._owners = owners
        self.keys = keys
        self.instance = instance
        self._lease_ms = round(lease_s * 1000)
        self._sealer = sealer
        """Seals each event's envelope (the topology field is the first one's) and each record with
        ``HARNESS_ENCRYPTION_KEY`` (``api.runs.log.records``)."""
        self._claim = redis.register_script(CLAIM)
        self._enqueue = redis.register_script(ENQUEUE)
        self._start_queued = redis.register_script(START_QUEUED)
        self._hold = redis.register_script(HOLD)
        self._release = redis.register_script(RELEASE)
        self._renew = redis.register_script(RENEW)
        self._writer: BatchWriter[tuple[str, StoredEvent | EncodedRecord]] = BatchWriter(self._commit_batch)
        reachability = Reachability()
        self.unreachable = reachability.unreachable
        """The stores the writer could not reach on its last try (``Redis``, ``PostgreSQL``)."""
        self._appender = RedisAppender(
            redis,
            keys,
            instance=instance,
            lease_ms=self._lease_ms,
            replay_window=replay_window,
            sealer=sealer,
            reachability=reachability,
        )
        self._copier = ArchiveCopier(archive, owners, reachability)
        self._erasure = RedisErasure(redis, keys, archive, owners, self._copier)
        self._begin = RedisBegin(
            redis, keys, owners, self._copier, instance=instance, lease_ms=self._lease_ms, encode=self._encoded
        )
        self._on_commit: Callable[[str, int], None] = lambda run_id, seq: None
        self._on_fenced: Callable[[str], None] = lambda run_id: None

    async def open(self, on_commit: Callable[[str, int], None], on_fenced: Callable[[str], None]) -> None:
        self._on_commit = on_commit
        self._on_fenced = on_fenced
        await check_key(self.key_check(), self._sealer)
        self._writer.start()
        self._copier.start()

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.flush(), RETRY_MAX_S * 5)
        except TimeoutError:
            logger.error(
                "closing with %d unwritten event-log operations: the stores are unreachable", self._writer.pending
            )
        await self._writer.stop()
        await self._copier.stop()

    def append(self, run_id: str, event: StoredEvent, record: RunRecord | None = None) -> None:
        self._writer.put((run_id, event))
        if record is not None:
            self._writer.put((run_id, self._encoded(record)))
        self._writer.queued(event.type)

    def save_run(self, record: RunRecord) -> None:
        self._writer.put((record.snapshot.run_id, self._encoded(record)))
        self._writer.queued(None)

    def key_check(self) -> RedisKeyCheck:
        """The prefix's key check (``agent.stores.key_check``): run as the log opens, and by ``harness rotate-key``."""
        return RedisKeyCheck(self._redis, self.keys)

    def _encoded(self, record: RunRecord) -> EncodedRecord:
        """The record as Redis and the archive store it: the same sealed bytes in both, bound to its run."""
        encoded = record.encode()
        return encoded if self._sealer is None else encoded.sealed(self._sealer)

    async def flush(self) -> None:
        await self._writer.flush()

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        """One round trip: the run's hash fields and every entry holding an event after ``after``; of the
        first entry, only the events after both ``after`` and the trim point."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hmget(self.keys.run(run_id), "topology", "trimmed")
            pipe.xrange(self.keys.events(run_id), min=f"({max(after, 1)}")
            (topology, trimmed_at), entries = await pipe.execute()
        trimmed = int(trimmed_at) if trimmed_at is not None else 1
        events = []
        if after == 0 and topology is not None:
            opened = topology if self._sealer is None else self._sealer.unseal(topology, where_event(run_id, 1))
            events.append(StoredEvent(1, "graph_topology", envelope_of_frame(opened)))
        floor = max(after, trimmed, 1)
        for entry_id, fields in entries:
            held = entry_events(run_id, entry_id, fields, self._sealer)
            events.extend(held if held[0].seq > floor else [event for event in held if event.seq > floor])
        return events, trimmed

    async def load_run(self, run_id: str) -> RunRecord | None:
        data, last_seq = cast(
            "list[bytes | None]", await self._redis.hmget(self.keys.run(run_id), "record", "last_seq")
        )
        if data is None:
            return await self._archive.load(run_id)
        return _with_last_seq(open_record(self._sealer, run_id, data), last_seq)

    async def begin_run(self, record: RunRecord, access: SessionAccess, *, new_session: bool = False) -> str | None:
        return await self._begin.begin_run(record, access, new_session=new_session)

    async def active_run(self, session_id: str) -> str | None:
        found = cast("bytes | None", await self._redis.get(self.keys.session(session_id)))
        return None if found is None else found.decode()

    async def enqueue_run(self, record: RunRecord) -> None:
        keys, snapshot = self.keys, record.snapshot
        run_id, session_id = snapshot.run_id, snapshot.session_id
        encoded = self._encoded(record)
        queued = await self._enqueue(
            keys=[
                keys.run(run_id),
                keys.queue(session_id),
                keys.queued,
                keys.erasing(session_id),
                keys.session_runs(session_id),
            ],
            args=[run_id, encoded.data, session_id],
        )
        if not queued:
            raise SessionBusy(f"Session {session_id} is being erased.")
        self._copier.committed(run_id, encoded)

    async def start_queued(self, session_id: str) -> RunRecord | None:
        keys = self.keys
        found = await self._start_queued(
            keys=[
                keys.session(session_id),
                keys.queue(session_id),
                keys.queued,
                keys.running,
                keys.erasing(session_id),
            ],
            args=[keys.prefix, self.instance, self._lease_ms, session_id],
        )
        if not found:
            return None
        run_id, data, last_seq = found
        return _with_last_seq(open_record(self._sealer, run_id.decode(), data), last_seq)

    async def queued_sessions(self) -> list[str]:
        members = cast("set[bytes]", await self._redis.smembers(self.keys.queued))
        return sorted(member.decode() for member in members)

    async def queued_runs(self, session_id: str) -> list[str]:
        queued = cast("list[bytes]", await self._redis.lrange(self.keys.queue(session_id), 0, -1))
        return [run_id.decode() for run_id in queued]

    # --- the Agent Protocol's threads (PostgreSQL keeps them with their session's owner) ---

    async def create_thread(self, thread: ThreadRecord, access: SessionAccess) -> tuple[ThreadRecord, bool]:
        thread_id = thread.thread_id
        owner, erasing, made = await self._owners.claim_new_id(thread_id, access.owner)
        if not access.may_continue(owner):
            raise SessionNotFound(f"There is no thread {thread_id}.")
        if erasing:
            raise SessionBusy(f"Thread {thread_id} is being erased.")
        if not made:
            return await self.load_thread(thread_id) or thread, False
        await self.save_thread(thread)
        return thread, True

    async def save_thread(self, thread: ThreadRecord) -> None:
        await self._owners.save_thread(thread.thread_id, encode_thread(self._sealer, thread))

    async def load_thread(self, thread_id: str) -> ThreadRecord | None:
        record = await self._owners.thread(thread_id)
        return None if record is None else open_thread(self._sealer, thread_id, record)

    async def search_threads(self, access: SessionAccess) -> list[ThreadRecord]:
        return [
            open_thread(self._sealer, thread_id, record)
            for thread_id, owner, record in await self._owners.threads()
            if access.may_continue(owner)
        ]

    async def waiting_runs(self) -> list[RunRecord]:
        members = cast("list[bytes]", await self._redis.zrange(self.keys.waiting, 0, -1))
        if not members:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for member in members:
                pipe.hget(self.keys.run(member.decode()), "record")
            found = await pipe.execute()
        return [
            open_record(self._sealer, member.decode(), data)
            for member, data in zip(members, found, strict=True)
            if data is not None
        ]

    async def claim_run(self, run_id: str) -> RunRecord | None:
        found = await self._claim(
            keys=[self.keys.lease(run_id), self.keys.run(run_id)], args=[self.instance, self._lease_ms]
        )
        if not found or found[0] is None:
            return None
        return _with_last_seq(open_record(self._sealer, run_id, found[0]), found[1])

    async def release_run(self, run_id: str) -> None:
        await self._release(keys=[self.keys.lease(run_id)], args=[self.instance])

    async def renew(self, run_ids: Iterable[str]) -> set[str]:
        held = list(run_ids)
        if not held:
            return set()
        lost = await self._renew(
            keys=[self.keys.lease(run_id) for run_id in held], args=[self.instance, self._lease_ms]
        )
        return {held[position - 1] for position in lost}

    async def lost_runs(self) -> list[str]:
        members = cast("set[bytes]", await self._redis.smembers(self.keys.running))
        running = [member.decode() for member in members]
        if not running:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id in running:
                pipe.exists(self.keys.lease(run_id))
            leased = await pipe.execute()
        return [run_id for run_id, held in zip(running, leased, strict=True) if not held]

    async def check(self) -> None:
        self._writer.raise_on_failure()
        await self._redis.ping()

    # --- forgetting: retention and erasure (the archive knows the runs Redis no longer holds) ---

    async def session_owner(self, session_id: str) -> tuple[bool, str | None]:
        known, owner = await self._owners.owner(session_id)
        if known:
            return True, owner
        # a session made a moment ago, whose claim is still on its way to PostgreSQL
        cached = cast("bytes | None", await self._redis.get(self.keys.owner(session_id)))
        return (False, None) if cached is None else (True, cached.decode() or None)

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]:
        return await self._erasure.session_runs(session_ids)

    async def account_sessions(self, account_id: str) -> list[str]:
        return await self._archive.account_sessions(account_id)

    async def expired_runs(self, before: str, limit: int) -> list[tuple[str, str]]:
        return await self._archive.expired(before, limit)

    async def finished_runs(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]:
        """From the archive, where a run's record is copied right after Redis commits it."""
        return await self._archive.finished(after, before, limit)

    async def idle_sessions(self, before: str, limit: int) -> list[str]:
        """From the archive: a run begun a moment ago may not be there yet, which the sweep checks again once it
        holds the sessions (``session_runs`` reads Redis too)."""
        return await self._archive.idle_sessions(before, limit)

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        return await self._erasure.erase_runs(runs)

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        await self._erasure.forget_sessions(session_ids)

    async def hold_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        """PostgreSQL first: a turn that begins between the two steps is one the erasure then lists and ends."""
        await self._owners.hold(session_ids, holder)
        keys = self.keys
        await self._hold(keys=[key for s in session_ids for key in (keys.owner(s), keys.erasing(s))], args=[holder])

    async def release_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        await self._release(keys=[self.keys.erasing(session_id) for session_id in session_ids], args=[holder])
        await self._owners.release(session_ids, holder)

    async def compact(self) -> None:
        return None

    # --- the writer ---

    async def _commit_batch(self, batch: list[tuple[str, StoredEvent | EncodedRecord]]) -> None:
        """One batch of the writer's: one pipelined round trip, retried until Redis takes it."""
        runs = group(batch)
        outcomes = await self._appender.commit(runs)
        for run_id, (fenced, last_seq) in outcomes.items():
            if fenced:
                self._on_fenced(run_id)
            elif runs[run_id].events:
                self._on_commit(run_id, last_seq)
            record = runs[run_id].record
            if record is not None and not fenced:
                self._copier.committed(run_id, record)


def _with_last_seq(record: RunRecord, last_seq: bytes | None) -> RunRecord:
    if last_seq is not None:
        record.snapshot.last_seq = int(last_seq)
    return record
