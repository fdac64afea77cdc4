"""The shared event log: one Redis stream per run, its record beside it, and leases that fence writers.

Appends are queued and committed in batches like the embedded log's: one pipelined round trip per batch,
one ``APPEND`` script per run in it (see ``redis_scripts``), which adds that run's events as one stream entry
(``redis_entries``). A batch that cannot reach Redis is retried,
unchanged and in order, until Redis answers again; events count as published only once Redis has them.
Records committed in a batch are then copied to PostgreSQL (``RunArchive``) by a task of their own.

Who owns a session is PostgreSQL's to say (``SessionOwners``); ``BEGIN`` checks Redis's copy of it, and asks
for PostgreSQL's answer when Redis has none.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, cast

from redis.exceptions import NoScriptError

from agent.stores import check_key, is_store_failure
from api.runs.errors import SessionBusy, SessionNotFound
from api.runs.log.records import EncodedRecord, StoredEvent, envelope_of_frame, open_record, where_event
from api.runs.log.redis_entries import entry_blob, entry_events
from api.runs.log.redis_key_check import RedisKeyCheck
from api.runs.log.redis_scripts import APPEND, BEGIN, CLAIM, ENQUEUE, HOLD, RELEASE, RENEW, START_QUEUED
from api.runs.log.threads import encode_thread, open_thread
from api.runs.log.writer import BatchWriter
from api.stopping import stop_task

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

_RETRY_FIRST_S = 0.05
_RETRY_MAX_S = 2.0


class _RunBatch:
    __slots__ = ("entry", "events", "record", "topology")

    def __init__(self) -> None:
        self.events: list[StoredEvent] = []
        self.record: EncodedRecord | None = None
        self.entry = b""
        """The stream entry holding ``events``, sealed once: a retried batch sends the same bytes."""
        self.topology = b""
        """The topology's envelope, for the run's hash, when ``events`` begin with it."""


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
        self._window = replay_window
        self._sealer = sealer
        """Seals each event's envelope (the topology field is the first one's) and each record with
        ``HARNESS_ENCRYPTION_KEY`` (``api.runs.log.records``)."""
        self._append = redis.register_script(APPEND)
        self._begin = redis.register_script(BEGIN)
        self._claim = redis.register_script(CLAIM)
        self._enqueue = redis.register_script(ENQUEUE)
        self._start_queued = redis.register_script(START_QUEUED)
        self._hold = redis.register_script(HOLD)
        self._release = redis.register_script(RELEASE)
        self._renew = redis.register_script(RENEW)
        self._writer: BatchWriter[tuple[str, StoredEvent | EncodedRecord]] = BatchWriter(self._commit_batch)
        self._archiver: asyncio.Task[None] | None = None
        self._unarchived: dict[str, EncodedRecord] = {}
        self._unclaimed: dict[str, tuple[str, str | None, str]] = {}
        """Sessions the service made, whose owner PostgreSQL does not have yet: ``(session, owner, first run)``."""
        self._archive_wanted = asyncio.Event()
        self._on_commit: Callable[[str, int], None] = lambda run_id, seq: None
        self._on_fenced: Callable[[str], None] = lambda run_id: None
        self.unreachable: set[str] = set()
        """The stores the writer could not reach on its last try (``Redis``, ``PostgreSQL``)."""

    async def open(self, on_commit: Callable[[str, int], None], on_fenced: Callable[[str], None]) -> None:
        self._on_commit = on_commit
        self._on_fenced = on_fenced
        await check_key(self.key_check(), self._sealer)
        self._writer.start()
        self._archiver = asyncio.create_task(self._archive_records(), name="run-archiver")

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.flush(), _RETRY_MAX_S * 5)
        except TimeoutError:
            logger.error(
                "closing with %d unwritten event-log operations: the stores are unreachable", self._writer.pending
            )
        await self._writer.stop()
        if self._archiver is not None:
            await stop_task(self._archiver)
        if self._unarchived or self._unclaimed:
            try:
                async with asyncio.timeout(_RETRY_MAX_S):
                    await self._archive.save(list(self._unarchived.values()))
                    await self._owners.claim_new(list(self._unclaimed.values()))
            except Exception as exc:
                if not (isinstance(exc, TimeoutError) or is_store_failure(exc)):
                    raise
                logger.error(
                    "closing with %d run records and %d session owners not copied to PostgreSQL",
                    len(self._unarchived),
                    len(self._unclaimed),
                )

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
        """A session the service has just made is the caller's in Redis at once and in PostgreSQL right after
        (``claim_new``): no PostgreSQL round trip before the first token. Any other session takes Redis's copy
        of its owner, or, without one, PostgreSQL's claim (which makes a new session the caller's)."""
        snapshot = record.snapshot
        run_id, session_id = snapshot.run_id, snapshot.session_id
        outcome = await self._begin_script(record, access, copy=new_session, owner=access.owner)
        if outcome[0] == b"unknown":
            owner, erasing = await self._owners.claim(session_id, access.owner)
            if erasing or not access.may_continue(owner):
                raise _refusal(session_id, access, owner, erasing=erasing)
            outcome = await self._begin_script(record, access, copy=True, owner=owner)
        if outcome[0] == b"erasing":
            known, owner = await self._owners.owner(session_id)
            raise _refusal(session_id, access, owner, erasing=known)
        if outcome[0] == b"foreign":
            raise SessionNotFound(f"There is no session {session_id}.")
        if outcome[0] == b"busy":
            return str(outcome[1].decode())
        if new_session:
            self._unclaimed[session_id] = (session_id, access.owner, run_id)
        self._unarchived[run_id] = self._encoded(record)
        self._archive_wanted.set()
        return None

    async def _begin_script(
        self, record: RunRecord, access: SessionAccess, *, copy: bool, owner: str | None = None
    ) -> Any:
        """``BEGIN``; with ``copy``, ``owner`` is the session's owner for Redis to copy in should it have none."""
        keys = self.keys
        run_id, session_id = record.snapshot.run_id, record.snapshot.session_id
        return await self._begin(
            keys=[
                keys.session(session_id),
                keys.run(run_id),
                keys.lease(run_id),
                keys.running,
                keys.owner(session_id),
                keys.erasing(session_id),
            ],
            args=[
                keys.prefix,
                run_id,
                self.instance,
                self._lease_ms,
                self._encoded(record).data,
                session_id,
                access.owner or "",
                int(access.any_session),
                int(access.unowned_sessions),
                int(copy),
                owner or "",
            ],
        )

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
        self._unarchived[run_id] = encoded
        self._archive_wanted.set()

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
        async with self._redis.pipeline(transaction=False) as pipe:
            for session_id in session_ids:
                pipe.smembers(self.keys.session_runs(session_id))
            members = await pipe.execute()
        found = {
            session_id: sorted(member.decode() for member in runs)
            for session_id, runs in zip(session_ids, members, strict=True)
            if runs
        }
        for session_id, run_id in await self._archive.session_runs(session_ids):
            runs = found.setdefault(session_id, [])
            if run_id not in runs:
                runs.append(run_id)
        return found

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
        keys = self.keys
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, _ in runs:
                pipe.hmget(keys.run(run_id), "last_seq", "trimmed")
            held = [_events_held(*fields) for fields in await pipe.execute()]
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, session_id in runs:
                pipe.delete(
                    keys.run(run_id),
                    keys.events(run_id),
                    keys.lease(run_id),
                    keys.subscribers(run_id),
                    keys.cancel(run_id),
                )
                pipe.srem(keys.running, run_id)
                pipe.zrem(keys.waiting, run_id)
                pipe.srem(keys.session_runs(session_id), run_id)
            await pipe.execute()
        for run_id, _ in runs:
            self._unarchived.pop(run_id, None)
        await self._archive.erase([run_id for run_id, _ in runs])
        return sum(held)

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        """Redis's copies first, PostgreSQL's rows last: until the row goes, a turn that misses the copies finds
        the tombstone there."""
        remaining = await self.session_runs(session_ids)
        gone = [session_id for session_id in session_ids if session_id not in remaining]
        if gone:
            keys = self.keys
            await self._redis.delete(
                *(
                    key
                    for s in gone
                    for key in (keys.owner(s), keys.session_runs(s), keys.session(s), keys.erasing(s), keys.queue(s))
                )
            )
            await self._redis.srem(keys.queued, *gone)
            for session_id in gone:
                self._unclaimed.pop(session_id, None)
            await self._owners.forget(gone)

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
        runs = _group(batch)
        self._encode_entries(runs)  # once: a retried batch sends the same bytes (APPEND skips them)
        outcomes = await self._commit_until_done(runs)
        for run_id, (fenced, last_seq) in outcomes.items():
            if fenced:
                self._on_fenced(run_id)
            elif runs[run_id].events:
                self._on_commit(run_id, last_seq)
            record = runs[run_id].record
            if record is not None and not fenced:
                self._unarchived[run_id] = record
                self._archive_wanted.set()

    async def _commit_until_done(self, runs: dict[str, _RunBatch]) -> dict[str, tuple[bool, int]]:
        delay = _RETRY_FIRST_S
        while True:
            try:
                outcomes = await self._commit(runs)
            except Exception as exc:
                if not is_store_failure(exc):
                    raise
                self._failing(exc, "Redis")
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX_S)
                continue
            self._recovered("Redis")
            return outcomes

    def _encode_entries(self, runs: dict[str, _RunBatch]) -> None:
        for run_id, run in runs.items():
            events = run.events
            if not events:
                continue
            run.entry = entry_blob(run_id, events, self._sealer)
            if events[0].seq == 1:
                envelope = events[0].envelope
                run.topology = envelope if self._sealer is None else self._sealer.seal(envelope, where_event(run_id, 1))

    async def _commit(self, runs: dict[str, _RunBatch]) -> dict[str, tuple[bool, int]]:
        """``APPEND`` for each run, by its hash in one pipeline: no ``SCRIPT EXISTS`` round trip before each
        commit, and the script loaded again only when Redis has lost it (a restart, ``SCRIPT FLUSH``)."""
        try:
            replies = await self._append_all(runs)
        except NoScriptError:
            await self._redis.script_load(APPEND)
            replies = await self._append_all(runs)
        return {run_id: (reply[0] == b"fenced", int(reply[1])) for run_id, reply in zip(runs, replies, strict=True)}

    async def _append_all(self, runs: dict[str, _RunBatch]) -> list[Any]:
        keys = self.keys
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
                    self.instance,
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

    async def _archive_records(self) -> None:
        """Copy committed records to PostgreSQL, apart from the writer: an outage there never holds up events."""
        delay = _RETRY_FIRST_S
        while True:
            await self._archive_wanted.wait()
            self._archive_wanted.clear()
            records, self._unarchived = self._unarchived, {}
            claims, self._unclaimed = self._unclaimed, {}
            try:
                await self._archive.save(list(records.values()))
                # after the runs' copies: the claim of a run erased meanwhile meets its tombstone there
                await self._owners.claim_new(list(claims.values()))
            except Exception as exc:
                if not is_store_failure(exc):
                    raise
                self._failing(exc, "PostgreSQL")
                self._unarchived = records | self._unarchived  # newer records of the same runs win
                self._unclaimed = claims | self._unclaimed
                self._archive_wanted.set()
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX_S)
                continue
            self._recovered("PostgreSQL")
            delay = _RETRY_FIRST_S

    def _failing(self, exc: BaseException, store: str) -> None:
        if store not in self.unreachable:
            self.unreachable.add(store)
            logger.error("%s is unreachable (%s); retrying the event log's writes", store, type(exc).__name__)

    def _recovered(self, store: str) -> None:
        if store in self.unreachable:
            self.unreachable.discard(store)
            logger.warning("%s answers again; the event log's writes go on", store)


def _refusal(session_id: str, access: SessionAccess, owner: str | None, *, erasing: bool) -> Exception:
    """A turn that may not begin: 409 for the owner of a session being erased, 404 for anyone else."""
    if erasing and access.may_continue(owner):
        return SessionBusy(f"Session {session_id} is being erased.")
    return SessionNotFound(f"There is no session {session_id}.")


def _group(batch: list[tuple[str, StoredEvent | EncodedRecord]]) -> dict[str, _RunBatch]:
    runs: dict[str, _RunBatch] = {}
    for run_id, op in batch:
        run = runs.get(run_id)
        if run is None:
            run = runs[run_id] = _RunBatch()
        if isinstance(op, EncodedRecord):
            run.record = op
        else:
            run.events.append(op)
    return runs


def _events_held(last_seq: bytes | None, trimmed: bytes | None) -> int:
    """The events a run's log holds: all of them, or, once trimmed, those after the trim point (the topology
    aside)."""
    last, through = int(last_seq or 0), int(trimmed or 1)
    return last if through <= 1 else last - through


def _with_last_seq(record: RunRecord, last_seq: bytes | None) -> RunRecord:
    if last_seq is not None:
        record.snapshot.last_seq = int(last_seq)
    return record
