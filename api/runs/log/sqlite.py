"""The embedded event log: SQLite in WAL mode, appended in batched transactions on the event loop.

Everything queued while the loop was busy goes into the next batch (group commit), so a run producing
thousands of events a second costs a handful of commits, not one per event. A batch's events of one run
are stored as one row (``event_batches``, the events in MessagePack), so an event costs no row of its own.
A batch commits on the loop thread through its own connection: with ``synchronous=NORMAL`` a WAL commit
is a write to the log file, cheaper than the hand-off to a thread and back that would stand between every
event and its subscribers. What can take long runs on the store thread through a second connection:
reads, erasure, and the WAL checkpoints (the one step that syncs to disk), so the loop never waits for the
disk. Batches and erasures take turns (``_exclusive``), so the loop never waits for SQLite's write lock
either.

One process owns the data directory, so the right to write a run is kept in memory; a run recorded as
running that this process does not hold was left by a crash.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import msgspec

from agent.stores import SqliteFileKeyCheck, check_key, private_sqlite_file, scrub
from api.runs.errors import SessionBusy, SessionNotFound
from api.runs.log.records import (
    FINISHED,
    PENDING,
    EncodedRecord,
    StoredEvent,
    as_envelopes,
    open_record,
    trim_point,
    where_batch,
    where_record,
)
from api.runs.log.threads import encode_thread, open_thread
from api.runs.log.writer import BatchWriter

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

    from agent import Sealer
    from api.runs.log.ownership import SessionAccess
    from api.runs.log.records import RunRecord
    from api.runs.log.threads import ThreadRecord

__all__ = ("SqliteEventLog",)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS event_batches (
    run_id TEXT NOT NULL, last_seq INTEGER NOT NULL, first_seq INTEGER NOT NULL, held INTEGER NOT NULL,
    events BLOB NOT NULL,
    PRIMARY KEY (run_id, last_seq)
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL,
    trimmed_through INTEGER NOT NULL DEFAULT 1, record BLOB NOT NULL,
    changed_at TEXT NOT NULL DEFAULT '', account_id TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs (session_id);
CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, owner TEXT);
CREATE TABLE IF NOT EXISTS session_erasures (session_id TEXT PRIMARY KEY, holder TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS threads (thread_id TEXT PRIMARY KEY, record BLOB NOT NULL);
"""
_ADDED_COLUMNS = {
    "changed_at": (
        "ALTER TABLE runs ADD COLUMN changed_at TEXT NOT NULL DEFAULT ''",
        "UPDATE runs SET changed_at = json_extract(CAST(record AS TEXT), '$.snapshot.updated_at')",
    ),
    "account_id": ("ALTER TABLE runs ADD COLUMN account_id TEXT",),
}
"""Columns a data directory from before retention and erasure lacks, and how it gets them."""
_LATER_INDEXES = """
CREATE INDEX IF NOT EXISTS runs_finished_by_age ON runs (changed_at)
    WHERE status IN ('completed', 'failed', 'cancelled');
CREATE INDEX IF NOT EXISTS runs_by_account ON runs (account_id) WHERE account_id IS NOT NULL;
"""
_encode_events = msgspec.msgpack.Encoder().encode
_decode_events = msgspec.msgpack.Decoder(list[StoredEvent]).decode
_FINISHED_SQL = ", ".join(f"'{status}'" for status in sorted(FINISHED))


class _SessionRow(msgspec.Struct, frozen=True):
    session_id: str
    owner: str | None


class _ThreadRow(msgspec.Struct, frozen=True):
    thread_id: str
    record: bytes


_Op = tuple[str, StoredEvent] | EncodedRecord | _SessionRow | _ThreadRow
_CHECKPOINT_BYTES = 4 * 1024 * 1024
"""How much is appended between two checkpoints (SQLite's own default is about 4 MB of pages)."""
_P = ParamSpec("_P")
_T = TypeVar("_T")
logger = logging.getLogger(__name__)


class SqliteEventLog:
    def __init__(self, path: Path, *, replay_window: int, sealer: Sealer | None = None) -> None:
        self._path = path
        self._window = replay_window
        self._sealer = sealer
        """Seals each batch's blob and each record with ``HARNESS_ENCRYPTION_KEY`` (``api.runs.log.records``)."""
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-log")
        self._db: sqlite3.Connection | None = None
        """The store thread's connection: reads, erasure, checkpoints."""
        self._appends: sqlite3.Connection | None = None
        """The loop thread's connection: the batches."""
        self._exclusive = asyncio.Lock()
        """Held by whoever writes: a batch, or an erasure."""
        self._unchecked_bytes = 0
        self._checkpoint: asyncio.Future[Any] | None = None
        self._writer: BatchWriter[_Op] = BatchWriter(self._commit)
        self._on_commit: Callable[[str, int], None] = lambda run_id, seq: None
        self._held: set[str] = set()
        """Runs this process may write."""
        self._sessions: dict[str, str] = {}
        """Each session's unfinished run."""
        self._queues: dict[str, list[str]] = {}
        """Each session's queued (``pending``) runs, oldest first."""
        self._owners: dict[str, str | None] = {}
        """The owners of the sessions looked up so far: a cache of the ``sessions`` table, which one process owns."""
        self._erasing: dict[str, str] = {}
        """The sessions being erased, by who holds them: the ``session_erasures`` table's tombstones."""

    async def open(self, on_commit: Callable[[str, int], None], on_fenced: Callable[[str], None]) -> None:
        self._on_commit = on_commit
        await self._call(self._connect)
        try:
            await check_key(self.key_check(), self._sealer)
        except BaseException:
            db, self._db = self._db, None
            await self._call(db.close)  # type: ignore[union-attr]
            raise
        self._appends = _connection(self._path, wal_autocheckpoint=0)
        rows = await self._call(
            self._fetch_all, "SELECT session_id, run_id FROM runs WHERE status IN ('running', 'waiting')"
        )
        self._sessions = {session_id: run_id for session_id, run_id in rows}
        queued = await self._call(
            self._fetch_all, "SELECT session_id, run_id FROM runs WHERE status = 'pending' ORDER BY rowid"
        )
        for session_id, run_id in queued:
            self._queues.setdefault(session_id, []).append(run_id)
        held = await self._call(self._fetch_all, "SELECT session_id, holder FROM session_erasures")
        self._erasing = {session_id: holder for session_id, holder in held}
        self._writer.start()

    async def close(self) -> None:
        await self.flush()
        await self._writer.stop()
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        if self._appends is not None:
            self._appends.close()
        if self._db is not None:
            await self._call(self._db.close)
        self._executor.shutdown(wait=True)

    def append(self, run_id: str, event: StoredEvent, record: RunRecord | None = None) -> None:
        self._writer.put((run_id, event))
        if record is not None:
            self._queue_record(record.encode())
        self._writer.queued(event.type)

    def save_run(self, record: RunRecord) -> None:
        self._queue_record(record.encode())
        self._writer.queued(None)

    async def flush(self) -> None:
        await self._writer.flush()

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        return await self._call(self._read, run_id, after)

    async def load_run(self, run_id: str) -> RunRecord | None:
        rows = await self._call(
            self._fetch_all,
            "SELECT record, (SELECT MAX(last_seq) FROM event_batches WHERE run_id = ?1) FROM runs WHERE run_id = ?1",
            (run_id,),
        )
        if not rows:
            return None
        record = open_record(self._sealer, run_id, rows[0][0])
        if rows[0][1] is not None:
            record.snapshot.last_seq = rows[0][1]
        return record

    async def begin_run(self, record: RunRecord, access: SessionAccess, *, new_session: bool = False) -> str | None:
        session_id = record.snapshot.session_id
        if not new_session and session_id not in self._owners:
            await self._load_owner(session_id)
        return self._claim(record, access)

    def _claim(self, record: RunRecord, access: SessionAccess) -> str | None:
        """``begin_run`` once the owner is cached: deciding and recording happen with no await between them, so
        two turns naming one new session at once cannot both take it."""
        session_id, run_id = record.snapshot.session_id, record.snapshot.run_id
        known = session_id in self._owners
        erasing = session_id in self._erasing
        if (known and not access.may_continue(self._owners[session_id])) or (erasing and not known):
            raise SessionNotFound(f"There is no session {session_id}.")
        if erasing:
            raise SessionBusy(f"Session {session_id} is being erased.")
        if (busy := self._sessions.get(session_id)) is not None:
            return busy
        if queued := self._queues.get(session_id):
            return queued[0]
        if not known:
            self._owners[session_id] = access.owner
            self._writer.put(_SessionRow(session_id, access.owner))
        self._sessions[session_id] = run_id
        self._held.add(run_id)
        self.save_run(record)
        return None

    async def active_run(self, session_id: str) -> str | None:
        return self._sessions.get(session_id)

    async def enqueue_run(self, record: RunRecord) -> None:
        session_id = record.snapshot.session_id
        if session_id in self._erasing:
            raise SessionBusy(f"Session {session_id} is being erased.")
        self._queues.setdefault(session_id, []).append(record.snapshot.run_id)
        self.save_run(record)

    async def start_queued(self, session_id: str) -> RunRecord | None:
        await self.flush()
        while (queue := self._queues.get(session_id)) and session_id not in self._sessions:
            if session_id in self._erasing or (run_id := queue[0]) in self._held:
                return None  # the session is being erased, or its first run cancelled: that settles it
            # taken before the await, so that no turn begins in the session meanwhile
            del queue[0]
            if not queue:
                del self._queues[session_id]
            self._sessions[session_id] = run_id
            self._held.add(run_id)
            record = await self.load_run(run_id)
            if record is not None and record.snapshot.status == PENDING:
                return record
            self._held.discard(run_id)  # erased, or ended while queued: the next one
            if self._sessions.get(session_id) == run_id:
                del self._sessions[session_id]
        return None

    async def queued_sessions(self) -> list[str]:
        return list(self._queues)

    async def queued_runs(self, session_id: str) -> list[str]:
        return list(self._queues.get(session_id, ()))

    # --- the Agent Protocol's threads ---

    async def create_thread(self, thread: ThreadRecord, access: SessionAccess) -> tuple[ThreadRecord, bool]:
        thread_id = thread.thread_id
        if thread_id not in self._owners:
            await self._load_owner(thread_id)
        known = thread_id in self._owners
        if (known and not access.may_continue(self._owners[thread_id])) or (thread_id in self._erasing and not known):
            raise SessionNotFound(f"There is no thread {thread_id}.")
        if thread_id in self._erasing:
            raise SessionBusy(f"Thread {thread_id} is being erased.")
        if known:
            return await self.load_thread(thread_id) or thread, False
        self._owners[thread_id] = access.owner
        self._writer.put(_SessionRow(thread_id, access.owner))
        await self.save_thread(thread)
        return thread, True

    async def save_thread(self, thread: ThreadRecord) -> None:
        self._writer.put(_ThreadRow(thread.thread_id, encode_thread(self._sealer, thread)))
        self._writer.queued(None)
        await self.flush()

    async def load_thread(self, thread_id: str) -> ThreadRecord | None:
        await self.flush()
        rows = await self._call(self._fetch_all, "SELECT record FROM threads WHERE thread_id = ?", (thread_id,))
        return open_thread(self._sealer, thread_id, rows[0][0]) if rows else None

    async def search_threads(self, access: SessionAccess) -> list[ThreadRecord]:
        await self.flush()
        rows = await self._call(
            self._fetch_all,
            "SELECT threads.thread_id, sessions.owner, threads.record FROM threads "
            "JOIN sessions ON sessions.session_id = threads.thread_id",
        )
        return [
            open_thread(self._sealer, thread_id, record)
            for thread_id, owner, record in rows
            if access.may_continue(owner)
        ]

    async def waiting_runs(self) -> list[RunRecord]:
        rows = await self._call(
            self._fetch_all, "SELECT run_id, record FROM runs WHERE status = 'waiting' ORDER BY rowid"
        )
        return [open_record(self._sealer, run_id, record) for run_id, record in rows]

    # --- forgetting: retention and erasure ---

    async def session_owner(self, session_id: str) -> tuple[bool, str | None]:
        await self.flush()
        if session_id not in self._owners:
            await self._load_owner(session_id)
        return (True, self._owners[session_id]) if session_id in self._owners else (False, None)

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]:
        await self.flush()
        found: dict[str, list[str]] = {}
        sql = "SELECT session_id, run_id FROM runs WHERE session_id IN ({ids})"
        for session_id, run_id in await self._call(self._fetch_in, sql, session_ids):
            found.setdefault(session_id, []).append(run_id)
        return found

    async def account_sessions(self, account_id: str) -> list[str]:
        await self.flush()
        rows = await self._call(
            self._fetch_all, "SELECT DISTINCT session_id FROM runs WHERE account_id = ?", (account_id,)
        )
        return [session_id for (session_id,) in rows]

    async def expired_runs(self, before: str, limit: int) -> list[tuple[str, str]]:
        await self.flush()
        rows = await self._call(
            self._fetch_all,
            f"SELECT run_id, session_id FROM runs WHERE status IN ({_FINISHED_SQL}) AND changed_at < ? "
            "ORDER BY changed_at LIMIT ?",
            (before, limit),
        )
        return [(run_id, session_id) for run_id, session_id in rows]

    async def finished_runs(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]:
        await self.flush()
        rows = await self._call(
            self._fetch_all,
            f"SELECT changed_at, run_id FROM runs WHERE status IN ({_FINISHED_SQL}) AND changed_at < ? "
            "AND (changed_at > ? OR (changed_at = ? AND run_id > ?)) ORDER BY changed_at, run_id LIMIT ?",
            (before, after[0], after[0], after[1], limit),
        )
        return [(changed_at, run_id) for changed_at, run_id in rows]

    async def idle_sessions(self, before: str, limit: int) -> list[str]:
        await self.flush()
        rows = await self._call(
            self._fetch_all,
            f"SELECT session_id FROM runs GROUP BY session_id HAVING MAX(changed_at) < ? "
            f"AND SUM(status NOT IN ({_FINISHED_SQL})) = 0 ORDER BY MAX(changed_at) LIMIT ?",
            (before, limit),
        )
        return [session_id for (session_id,) in rows]

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        await self.flush()
        for run_id, session_id in runs:
            queue = self._queues.get(session_id, [])
            if run_id in queue:
                queue.remove(run_id)
            if not queue:
                self._queues.pop(session_id, None)
        async with self._exclusive:
            return await self._call(self._erase_runs, [run_id for run_id, _ in runs])

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        await self.flush()
        for session_id in session_ids:
            self._owners.pop(session_id, None)
        async with self._exclusive:
            for table, column in (
                ("sessions", "session_id"),
                ("session_erasures", "session_id"),
                ("threads", "thread_id"),
            ):
                await self._call(
                    self._fetch_in,
                    f"DELETE FROM {table} WHERE {column} IN ({{ids}}) "
                    f"AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.session_id = {table}.{column})",
                    session_ids,
                )

    async def compact(self) -> None:
        await self.flush()
        assert self._db is not None
        async with self._exclusive:
            if self._checkpoint is not None:
                await asyncio.gather(self._checkpoint, return_exceptions=True)
            await self._call(scrub, self._db)

    async def hold_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        for session_id in session_ids:
            self._erasing.setdefault(session_id, holder)
        await self.flush()
        async with self._exclusive:
            await self._call(
                self._execute_many,
                "INSERT OR IGNORE INTO session_erasures VALUES (?, ?)",
                [(session_id, holder) for session_id in session_ids],
            )

    async def release_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        for session_id in session_ids:
            if self._erasing.get(session_id) == holder:
                del self._erasing[session_id]
        async with self._exclusive:
            await self._call(
                self._fetch_in,
                "DELETE FROM session_erasures WHERE holder = ? AND session_id IN ({ids})",
                session_ids,
                (holder,),
            )

    async def _load_owner(self, session_id: str) -> None:
        """Cache the session's owner (None for one from before identity, which only ``runs`` knows); a session
        never used stays out of the cache. Decides nothing: ``_claim`` does, after it."""
        rows = await self._call(
            self._fetch_all,
            "SELECT 1, owner FROM sessions WHERE session_id = ?1 "
            "UNION ALL SELECT 2, NULL FROM runs WHERE session_id = ?1 LIMIT 1",
            (session_id,),
        )
        if rows and session_id not in self._owners:  # a turn may have claimed it meanwhile
            self._owners[session_id] = rows[0][1]

    async def claim_run(self, run_id: str) -> RunRecord | None:
        if run_id in self._held:
            return None
        self._held.add(run_id)
        await self.flush()
        record = await self.load_run(run_id)
        if record is None:
            self._held.discard(run_id)
        return record

    async def release_run(self, run_id: str) -> None:
        self._held.discard(run_id)

    async def renew(self, run_ids: Iterable[str]) -> set[str]:
        return set()

    async def lost_runs(self) -> list[str]:
        rows = await self._call(self._fetch_all, "SELECT run_id FROM runs WHERE status = 'running'")
        return [run_id for (run_id,) in rows if run_id not in self._held]

    async def check(self) -> None:
        self._writer.raise_on_failure()

    def _queue_record(self, record: EncodedRecord) -> None:
        self._writer.put(record)
        if record.status != "running":
            self._held.discard(record.run_id)
        if record.status in FINISHED and self._sessions.get(record.session_id) == record.run_id:
            del self._sessions[record.session_id]
        if record.status in FINISHED and record.run_id in (queue := self._queues.get(record.session_id, [])):
            queue.remove(record.run_id)  # cancelled while it was queued
            if not queue:
                del self._queues[record.session_id]

    async def _commit(self, batch: list[_Op]) -> None:
        """One batch of the writer's, in one transaction, taking turns with an erasure."""
        async with self._exclusive:
            committed = self._write(batch)
        for run_id, seq in committed.items():
            self._on_commit(run_id, seq)
        if self._unchecked_bytes >= _CHECKPOINT_BYTES and self._checkpoint is None:
            self._start_checkpoint()

    def _start_checkpoint(self) -> None:
        """Fold the WAL into the database on the store thread; appends go on meanwhile."""
        assert self._db is not None
        self._unchecked_bytes = 0
        checkpoint = asyncio.ensure_future(self._call(self._fetch_all, "PRAGMA wal_checkpoint(PASSIVE)"))
        checkpoint.add_done_callback(self._checkpoint_done)
        self._checkpoint = checkpoint

    def _checkpoint_done(self, checkpoint: asyncio.Future[Any]) -> None:
        self._checkpoint = None
        if not checkpoint.cancelled() and checkpoint.exception() is not None:
            logger.warning("event log checkpoint failed: %s", checkpoint.exception())

    async def _call(self, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: function(*args, **kwargs))

    # --- on the loop: the batches ---

    def _write(self, batch: list[_Op]) -> dict[str, int]:
        assert self._appends is not None
        db = self._appends
        sessions: list[tuple[str, str | None]] = []
        threads: list[tuple[str, bytes]] = []
        events: dict[str, list[StoredEvent]] = {}
        records: list[tuple[str, str, str, bytes, str, str | None]] = []
        held: list[StoredEvent] = []
        held_for = None
        for op in batch:
            if op.__class__ is tuple:  # an event: nearly every op of a batch
                run_id, event = op
                if run_id is not held_for:
                    held, held_for = events.setdefault(run_id, []), run_id
                held.append(event)
            elif isinstance(op, _SessionRow):
                sessions.append((op.session_id, op.owner))
            elif isinstance(op, _ThreadRow):
                threads.append((op.thread_id, op.record))
            else:
                assert isinstance(op, EncodedRecord)
                data = op.data if self._sealer is None else self._sealer.seal(op.data, where_record(op.run_id))
                records.append((op.run_id, op.session_id, op.status, data, op.changed_at, op.account_id))
        rows = [
            (run_id, held[-1].seq, held[0].seq, len(held), self._blob(run_id, held)) for run_id, held in events.items()
        ]
        db.execute("BEGIN")
        try:
            db.executemany("INSERT OR IGNORE INTO sessions VALUES (?, ?)", sessions)
            db.executemany("INSERT OR REPLACE INTO threads VALUES (?, ?)", threads)
            db.executemany("INSERT INTO event_batches VALUES (?, ?, ?, ?, ?)", rows)
            db.executemany(
                "INSERT INTO runs (run_id, session_id, status, record, changed_at, account_id) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, "
                "record = excluded.record, changed_at = excluded.changed_at",
                records,
            )
            for run_id, last_seq, *_ in rows:
                self._trim(db, run_id, last_seq)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._unchecked_bytes += sum(len(row[-1]) for row in rows) + sum(len(record[3]) for record in records)
        return {run_id: last_seq for run_id, last_seq, *_ in rows}

    def _trim(self, db: sqlite3.Connection, run_id: str, last_seq: int) -> None:
        through = trim_point(last_seq, self._window)
        if through <= 1:
            return
        cursor = db.execute(
            "UPDATE runs SET trimmed_through = ? WHERE run_id = ? AND trimmed_through < ?",
            (through, run_id, through),
        )
        if not cursor.rowcount:
            return
        db.execute("DELETE FROM event_batches WHERE run_id = ? AND first_seq > 1 AND last_seq <= ?", (run_id, through))
        # What is left to trim: seqs 2.. of the run's first batch, and the start of the batch the trim point cuts
        # (the one after it): two lookups on the key, however many batches the run has
        next_batch = (
            "SELECT last_seq, held, events FROM event_batches WHERE run_id = ? AND last_seq > ? "
            "ORDER BY last_seq LIMIT 1"
        )
        candidates = {db.execute(next_batch, (run_id, after)).fetchone() for after in (0, through)}
        for batch_last_seq, held, blob in filter(None, candidates):
            stored = self._events(run_id, batch_last_seq, blob)
            kept = [event for event in stored if event.seq == 1 or event.seq > through]
            if len(kept) == held:
                continue
            db.execute(
                "UPDATE event_batches SET last_seq = ?, first_seq = ?, held = ?, events = ? "
                "WHERE run_id = ? AND last_seq = ?",
                (kept[-1].seq, kept[0].seq, len(kept), self._blob(run_id, kept), run_id, batch_last_seq),
            )

    def _blob(self, run_id: str, held: list[StoredEvent]) -> bytes:
        """A batch's events as the row stores them: MessagePack, sealed with a key."""
        blob = _encode_events(held)
        return blob if self._sealer is None else self._sealer.seal(blob, where_batch(run_id, held[-1].seq))

    def _events(self, run_id: str, last_seq: int, blob: bytes) -> list[StoredEvent]:
        if self._sealer is not None:
            blob = self._sealer.unseal(blob, where_batch(run_id, last_seq))
        return as_envelopes(_decode_events(blob))

    def key_check(self) -> SqliteFileKeyCheck:
        """The file's key check (``agent.stores.key_check``): run as the log opens, and by ``harness rotate-key``."""
        assert self._db is not None, "the log is open"
        return SqliteFileKeyCheck(
            self._db,
            str(self._path),
            "run events",
            [
                ("run events", "event_batches", "events"),
                ("run records", "runs", "record"),
                ("threads", "threads", "record"),
            ],
        )

    # --- the store thread from here on ---

    def _connect(self) -> None:
        private_sqlite_file(self._path)
        db = _connection(self._path)
        db.executescript(_SCHEMA)
        columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
        for column, statements in _ADDED_COLUMNS.items():
            if column not in columns:
                for statement in statements:
                    db.execute(statement)
        db.executescript(_LATER_INDEXES)
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone():
            _move_events_into_batches(db)
        self._db = db

    def _read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        assert self._db is not None
        row = self._db.execute("SELECT trimmed_through FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        batches = self._db.execute(
            "SELECT last_seq, events FROM event_batches WHERE run_id = ? AND last_seq > ? ORDER BY last_seq",
            (run_id, after),
        ).fetchall()
        events = [
            event for last_seq, blob in batches for event in self._events(run_id, last_seq, blob) if event.seq > after
        ]
        return events, row[0] if row else 1

    def _fetch_all(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        assert self._db is not None
        return self._db.execute(sql, args).fetchall()

    def _fetch_in(self, sql: str, ids: Sequence[str], args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """``sql`` whose ``{ids}`` stands for ``ids`` (after the parameters ``args``), in as many statements as
        SQLite takes."""
        assert self._db is not None
        found: list[tuple[Any, ...]] = []
        for chunk in _chunks(ids):
            found += self._db.execute(sql.format(ids=", ".join("?" * len(chunk))), (*args, *chunk)).fetchall()
        return found

    def _execute_many(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        assert self._db is not None
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany(sql, rows)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _erase_runs(self, run_ids: list[str]) -> int:
        assert self._db is not None
        db = self._db
        removed = 0
        db.execute("BEGIN")
        try:
            for chunk in _chunks(run_ids):
                marks = ", ".join("?" * len(chunk))
                held = db.execute(f"SELECT SUM(held) FROM event_batches WHERE run_id IN ({marks})", chunk).fetchone()
                removed += held[0] or 0
                db.execute(f"DELETE FROM event_batches WHERE run_id IN ({marks})", chunk)
                db.execute(f"DELETE FROM runs WHERE run_id IN ({marks})", chunk)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return removed


def _move_events_into_batches(db: sqlite3.Connection) -> None:
    """A data directory from before batched storage kept one row per event: each run's become one batch."""
    db.execute("BEGIN")
    try:
        run_ids = [run_id for (run_id,) in db.execute("SELECT DISTINCT run_id FROM events")]
        for run_id in run_ids:
            held = [
                StoredEvent(seq, kind, frame)
                for seq, kind, frame in db.execute(
                    "SELECT seq, type, frame FROM events WHERE run_id = ? ORDER BY seq", (run_id,)
                )
            ]
            db.execute(
                "INSERT INTO event_batches VALUES (?, ?, ?, ?, ?)",
                (run_id, held[-1].seq, held[0].seq, len(held), _encode_events(held)),
            )
        db.execute("DROP TABLE events")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _connection(path: Path, **pragmas: int) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA secure_delete=ON")  # what is removed is overwritten, not left in free pages
    db.execute("PRAGMA busy_timeout=5000")
    for name, value in pragmas.items():
        db.execute(f"PRAGMA {name}={value}")
    return db


def _chunks(ids: Sequence[str], size: int = 500) -> list[list[str]]:
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]
