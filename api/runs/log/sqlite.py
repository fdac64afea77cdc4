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

One process owns the data directory, so the right to write a run is kept in memory (``sqlite_sessions``); a run
recorded as running that this process does not hold was left by a crash. The file's tables are ``sqlite_schema``'s,
the batches' rows ``sqlite_batches``'s, the store thread ``sqlite_store_thread``'s.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent.stores import SqliteFileKeyCheck, check_key, scrub
from api.runs.log.records import (
    FINISHED,
    PENDING,
    EncodedRecord,
    StoredEvent,
    open_record,
)
from api.runs.log.sqlite_batches import Op, SessionRow, SqliteBatches, ThreadRow
from api.runs.log.sqlite_schema import connect, open_database
from api.runs.log.sqlite_sessions import SessionBook
from api.runs.log.sqlite_store_thread import StoreThread
from api.runs.log.threads import encode_thread, open_thread
from api.runs.log.writer import BatchWriter

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

    from agent import Sealer
    from api.runs.log.ownership import SessionAccess
    from api.runs.log.records import RunRecord
    from api.runs.log.threads import ThreadRecord

__all__ = ("SqliteEventLog",)

_FINISHED_SQL = ", ".join(f"'{status}'" for status in sorted(FINISHED))
_CHECKPOINT_BYTES = 4 * 1024 * 1024
"""How much is appended between two checkpoints (SQLite's own default is about 4 MB of pages)."""


class SqliteEventLog:
    def __init__(self, path: Path, *, replay_window: int, sealer: Sealer | None = None) -> None:
        self._path = path
        self._sealer = sealer
        """Seals each batch's blob and each record with ``HARNESS_ENCRYPTION_KEY`` (``api.runs.log.records``)."""
        self._store = StoreThread()
        """Reads, erasure, checkpoints."""
        self._batches = SqliteBatches(replay_window=replay_window, sealer=sealer)
        self._appends: sqlite3.Connection | None = None
        """The loop thread's connection: the batches."""
        self._exclusive = asyncio.Lock()
        """Held by whoever writes: a batch, or an erasure."""
        self._writer: BatchWriter[Op] = BatchWriter(self._commit)
        self._on_commit: Callable[[str, int], None] = lambda run_id, seq: None
        self._book = SessionBook()

    async def open(self, on_commit: Callable[[str, int], None], on_fenced: Callable[[str], None]) -> None:
        self._on_commit = on_commit
        self._store.db = await self._store.call(open_database, self._path)
        try:
            await check_key(self.key_check(), self._sealer)
        except BaseException:
            db, self._store.db = self._store.db, None
            await self._store.call(db.close)
            raise
        self._appends = connect(self._path, wal_autocheckpoint=0)
        rows = await self._store.fetch_all("SELECT session_id, run_id FROM runs WHERE status IN ('running', 'waiting')")
        self._book.active = {session_id: run_id for session_id, run_id in rows}
        queued = await self._store.fetch_all(
            "SELECT session_id, run_id FROM runs WHERE status = 'pending' ORDER BY rowid"
        )
        for session_id, run_id in queued:
            self._book.queues.setdefault(session_id, []).append(run_id)
        held = await self._store.fetch_all("SELECT session_id, holder FROM session_erasures")
        self._book.erasing = {session_id: holder for session_id, holder in held}
        self._writer.start()

    async def close(self) -> None:
        await self.flush()
        await self._writer.stop()
        await self._store.checkpointed()
        if self._appends is not None:
            self._appends.close()
        if self._store.db is not None:
            await self._store.call(self._store.db.close)
        self._store.shutdown()

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
        return await self._store.call(self._read, run_id, after)

    async def load_run(self, run_id: str) -> RunRecord | None:
        rows = await self._store.fetch_all(
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
        if not new_session and session_id not in self._book.owners:
            await self._load_owner(session_id)
        return self._claim(record, access)

    def _claim(self, record: RunRecord, access: SessionAccess) -> str | None:
        """``begin_run`` once the owner is cached: deciding and recording happen with no await between them, so
        two turns naming one new session at once cannot both take it."""
        session_id = record.snapshot.session_id
        known = self._book.check_access(session_id, access, noun="session")
        if (busy := self._book.claim(session_id, record.snapshot.run_id)) is not None:
            return busy
        if not known:
            self._book.owners[session_id] = access.owner
            self._writer.put(SessionRow(session_id, access.owner))
        self.save_run(record)
        return None

    async def active_run(self, session_id: str) -> str | None:
        return self._book.active.get(session_id)

    async def enqueue_run(self, record: RunRecord) -> None:
        self._book.enqueue(record.snapshot.session_id, record.snapshot.run_id)
        self.save_run(record)

    async def start_queued(self, session_id: str) -> RunRecord | None:
        await self.flush()
        # taken before the await, so that no turn begins in the session meanwhile
        while (run_id := self._book.take_queued(session_id)) is not None:
            record = await self.load_run(run_id)
            if record is not None and record.snapshot.status == PENDING:
                return record
            self._book.let_go(session_id, run_id)  # erased, or ended while queued: the next one
        return None

    async def queued_sessions(self) -> list[str]:
        return list(self._book.queues)

    async def queued_runs(self, session_id: str) -> list[str]:
        return list(self._book.queues.get(session_id, ()))

    # --- the Agent Protocol's threads ---

    async def create_thread(self, thread: ThreadRecord, access: SessionAccess) -> tuple[ThreadRecord, bool]:
        thread_id = thread.thread_id
        if thread_id not in self._book.owners:
            await self._load_owner(thread_id)
        if self._book.check_access(thread_id, access, noun="thread"):
            return await self.load_thread(thread_id) or thread, False
        self._book.owners[thread_id] = access.owner
        self._writer.put(SessionRow(thread_id, access.owner))
        await self.save_thread(thread)
        return thread, True

    async def save_thread(self, thread: ThreadRecord) -> None:
        self._writer.put(ThreadRow(thread.thread_id, encode_thread(self._sealer, thread)))
        self._writer.queued(None)
        await self.flush()

    async def load_thread(self, thread_id: str) -> ThreadRecord | None:
        await self.flush()
        rows = await self._store.fetch_all("SELECT record FROM threads WHERE thread_id = ?", (thread_id,))
        return open_thread(self._sealer, thread_id, rows[0][0]) if rows else None

    async def search_threads(self, access: SessionAccess) -> list[ThreadRecord]:
        await self.flush()
        rows = await self._store.fetch_all(
            "SELECT threads.thread_id, sessions.owner, threads.record FROM threads "
            "JOIN sessions ON sessions.session_id = threads.thread_id",
        )
        return [
            open_thread(self._sealer, thread_id, record)
            for thread_id, owner, record in rows
            if access.may_continue(owner)
        ]

    async def waiting_runs(self) -> list[RunRecord]:
        rows = await self._store.fetch_all("SELECT run_id, record FROM runs WHERE status = 'waiting' ORDER BY rowid")
        return [open_record(self._sealer, run_id, record) for run_id, record in rows]

    # --- forgetting: retention and erasure ---

    async def session_owner(self, session_id: str) -> tuple[bool, str | None]:
        await self.flush()
        if session_id not in self._book.owners:
            await self._load_owner(session_id)
        owners = self._book.owners
        return (True, owners[session_id]) if session_id in owners else (False, None)

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]:
        await self.flush()
        found: dict[str, list[str]] = {}
        sql = "SELECT session_id, run_id FROM runs WHERE session_id IN ({ids})"
        for session_id, run_id in await self._store.fetch_in(sql, session_ids):
            found.setdefault(session_id, []).append(run_id)
        return found

    async def account_sessions(self, account_id: str) -> list[str]:
        await self.flush()
        rows = await self._store.fetch_all("SELECT DISTINCT session_id FROM runs WHERE account_id = ?", (account_id,))
        return [session_id for (session_id,) in rows]

    async def expired_runs(self, before: str, limit: int) -> list[tuple[str, str]]:
        await self.flush()
        rows = await self._store.fetch_all(
            f"SELECT run_id, session_id FROM runs WHERE status IN ({_FINISHED_SQL}) AND changed_at < ? "
            "ORDER BY changed_at LIMIT ?",
            (before, limit),
        )
        return [(run_id, session_id) for run_id, session_id in rows]

    async def finished_runs(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]:
        await self.flush()
        rows = await self._store.fetch_all(
            f"SELECT changed_at, run_id FROM runs WHERE status IN ({_FINISHED_SQL}) AND changed_at < ? "
            "AND (changed_at > ? OR (changed_at = ? AND run_id > ?)) ORDER BY changed_at, run_id LIMIT ?",
            (before, after[0], after[0], after[1], limit),
        )
        return [(changed_at, run_id) for changed_at, run_id in rows]

    async def idle_sessions(self, before: str, limit: int) -> list[str]:
        await self.flush()
        rows = await self._store.fetch_all(
            f"SELECT session_id FROM runs GROUP BY session_id HAVING MAX(changed_at) < ? "
            f"AND SUM(status NOT IN ({_FINISHED_SQL})) = 0 ORDER BY MAX(changed_at) LIMIT ?",
            (before, limit),
        )
        return [session_id for (session_id,) in rows]

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        await self.flush()
        self._book.unqueue(runs)
        async with self._exclusive:
            return await self._store.erase_runs([run_id for run_id, _ in runs])

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        await self.flush()
        for session_id in session_ids:
            self._book.owners.pop(session_id, None)
        async with self._exclusive:
            for table, column in (
                ("sessions", "session_id"),
                ("session_erasures", "session_id"),
                ("threads", "thread_id"),
            ):
                await self._store.fetch_in(
                    f"DELETE FROM {table} WHERE {column} IN ({{ids}}) "
                    f"AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.session_id = {table}.{column})",
                    session_ids,
                )

    async def compact(self) -> None:
        await self.flush()
        db = self._store.db
        assert db is not None
        async with self._exclusive:
            await self._store.checkpointed()
            await self._store.call(scrub, db)

    async def hold_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        self._book.hold(session_ids, holder)
        await self.flush()
        async with self._exclusive:
            await self._store.execute_many(
                "INSERT OR IGNORE INTO session_erasures VALUES (?, ?)",
                [(session_id, holder) for session_id in session_ids],
            )

    async def release_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        self._book.release(session_ids, holder)
        async with self._exclusive:
            await self._store.fetch_in(
                "DELETE FROM session_erasures WHERE holder = ? AND session_id IN ({ids})",
                session_ids,
                (holder,),
            )

    async def _load_owner(self, session_id: str) -> None:
        """Cache the session's owner (None for one from before identity, which only ``runs`` knows); a session
        never used stays out of the cache. Decides nothing: ``_claim`` does, after it."""
        rows = await self._store.fetch_all(
            "SELECT 1, owner FROM sessions WHERE session_id = ?1 "
            "UNION ALL SELECT 2, NULL FROM runs WHERE session_id = ?1 LIMIT 1",
            (session_id,),
        )
        if rows and session_id not in self._book.owners:  # a turn may have claimed it meanwhile
            self._book.owners[session_id] = rows[0][1]

    async def claim_run(self, run_id: str) -> RunRecord | None:
        if run_id in self._book.held:
            return None
        self._book.held.add(run_id)
        await self.flush()
        record = await self.load_run(run_id)
        if record is None:
            self._book.held.discard(run_id)
        return record

    async def release_run(self, run_id: str) -> None:
        self._book.held.discard(run_id)

    async def renew(self, run_ids: Iterable[str]) -> set[str]:
        return set()

    async def lost_runs(self) -> list[str]:
        rows = await self._store.fetch_all("SELECT run_id FROM runs WHERE status = 'running'")
        return [run_id for (run_id,) in rows if run_id not in self._book.held]

    async def check(self) -> None:
        self._writer.raise_on_failure()

    def _queue_record(self, record: EncodedRecord) -> None:
        self._writer.put(record)
        self._book.recorded(record)

    async def _commit(self, batch: list[Op]) -> None:
        """One batch of the writer's, in one transaction, taking turns with an erasure."""
        async with self._exclusive:
            assert self._appends is not None
            committed = self._batches.write(self._appends, batch)
        for run_id, seq in committed.items():
            self._on_commit(run_id, seq)
        if self._batches.unchecked_bytes >= _CHECKPOINT_BYTES and self._store.start_checkpoint():
            self._batches.unchecked_bytes = 0

    def key_check(self) -> SqliteFileKeyCheck:
        """The file's key check (``agent.stores.key_check``): run as the log opens, and by ``harness rotate-key``."""
        assert self._store.db is not None, "the log is open"
        return SqliteFileKeyCheck(
            self._store.db,
            str(self._path),
            "run events",
            [
                ("run events", "event_batches", "events"),
                ("run records", "runs", "record"),
                ("threads", "threads", "record"),
            ],
        )

    def _read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        db = self._store.db
        assert db is not None
        row = db.execute("SELECT trimmed_through FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        batches = db.execute(
            "SELECT last_seq, events FROM event_batches WHERE run_id = ? AND last_seq > ? ORDER BY last_seq",
            (run_id, after),
        ).fetchall()
        events = [
            event
            for last_seq, blob in batches
            for event in self._batches.events(run_id, last_seq, blob)
            if event.seq > after
        ]
        return events, row[0] if row else 1
