"""The embedded event log: SQLite in WAL mode, written by one thread in batched transactions.

Everything queued while a batch is being committed goes into the next batch (group commit), so a run
producing thousands of events a second costs a handful of commits, not one per event.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import msgspec

from api.runs.records import RunRecord, StoredEvent, trim_point

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

__all__ = ("SqliteEventLog",)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, frame BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL,
    trimmed_through INTEGER NOT NULL DEFAULT 1, record BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);
"""

_Op = tuple[str, StoredEvent] | RunRecord
_P = ParamSpec("_P")
_T = TypeVar("_T")
logger = logging.getLogger(__name__)


class SqliteEventLog:
    def __init__(self, path: Path, *, replay_window: int) -> None:
        self._path = path
        self._window = replay_window
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-log")
        self._db: sqlite3.Connection | None = None
        self._queue: list[_Op] = []
        self._queued = asyncio.Event()
        self._committed_batches = 0
        self._queued_batches = 0
        self._batch_done = asyncio.Condition()
        self._writer: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._on_commit: Callable[[str, int], None] = lambda run_id, seq: None
        self._encode = msgspec.json.Encoder().encode
        self._decode = msgspec.json.Decoder(RunRecord).decode

    async def open(self, on_commit: Callable[[str, int], None]) -> None:
        self._on_commit = on_commit
        await self._call(self._connect)
        self._writer = asyncio.create_task(self._write_batches(), name="event-log-writer")

    async def close(self) -> None:
        await self.flush()
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        if self._db is not None:
            await self._call(self._db.close)
        self._executor.shutdown(wait=True)

    def append(self, run_id: str, event: StoredEvent) -> None:
        self._queue.append((run_id, event))
        self._queued.set()

    def save_run(self, record: RunRecord) -> None:
        self._queue.append(record)
        self._queued.set()

    async def flush(self) -> None:
        if not self._queue and self._committed_batches == self._queued_batches:
            return
        target = self._queued_batches + (1 if self._queue else 0)
        async with self._batch_done:
            await self._batch_done.wait_for(lambda: self._committed_batches >= target or self._failure is not None)
        if self._failure is not None:
            raise RuntimeError("the event log can no longer write") from self._failure

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        return await self._call(self._read, run_id, after)

    async def load_run(self, run_id: str) -> RunRecord | None:
        row = await self._call(self._fetch_one, "SELECT record FROM runs WHERE run_id = ?", (run_id,))
        return self._decode(row[0]) if row else None

    async def unfinished_runs(self) -> list[RunRecord]:
        rows = await self._call(self._fetch_all, "SELECT record FROM runs WHERE status IN ('running', 'waiting')", ())
        return [self._decode(row[0]) for row in rows]

    async def _write_batches(self) -> None:
        while True:
            await self._queued.wait()
            self._queued.clear()
            batch, self._queue = self._queue, []
            self._queued_batches += 1
            try:
                committed = await self._call(self._write, batch)
            except Exception as exc:
                logger.exception("event log write failed; no further events are persisted")
                self._failure = exc
                async with self._batch_done:
                    self._batch_done.notify_all()
                return
            self._committed_batches += 1
            for run_id, seq in committed.items():
                self._on_commit(run_id, seq)
            async with self._batch_done:
                self._batch_done.notify_all()

    async def _call(self, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: function(*args, **kwargs))

    # --- the writer thread from here on ---

    def _connect(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        self._db = db

    def _write(self, batch: list[_Op]) -> dict[str, int]:
        assert self._db is not None
        committed: dict[str, int] = {}
        db = self._db
        db.execute("BEGIN")
        try:
            for op in batch:
                if isinstance(op, RunRecord):
                    snapshot = op.snapshot
                    db.execute(
                        "INSERT INTO runs (run_id, session_id, status, record) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, record = excluded.record",
                        (snapshot.run_id, snapshot.session_id, snapshot.status, self._encode(op)),
                    )
                else:
                    run_id, event = op
                    db.execute(
                        "INSERT INTO events (run_id, seq, type, frame) VALUES (?, ?, ?, ?)",
                        (run_id, event.seq, event.type, event.frame),
                    )
                    committed[run_id] = event.seq
            for run_id, last_seq in committed.items():
                self._trim(run_id, last_seq)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return committed

    def _trim(self, run_id: str, last_seq: int) -> None:
        assert self._db is not None
        through = trim_point(last_seq, self._window)
        if through <= 1:
            return
        cursor = self._db.execute(
            "UPDATE runs SET trimmed_through = ? WHERE run_id = ? AND trimmed_through < ?",
            (through, run_id, through),
        )
        if cursor.rowcount:
            self._db.execute("DELETE FROM events WHERE run_id = ? AND seq > 1 AND seq <= ?", (run_id, through))

    def _read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        assert self._db is not None
        row = self._db.execute("SELECT trimmed_through FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        rows = self._db.execute(
            "SELECT seq, type, frame FROM events WHERE run_id = ? AND seq > ? ORDER BY seq", (run_id, after)
        ).fetchall()
        return [StoredEvent(seq, kind, frame) for seq, kind, frame in rows], row[0] if row else 1

    def _fetch_one(self, sql: str, args: tuple[object, ...]) -> tuple[bytes] | None:
        assert self._db is not None
        row: tuple[bytes] | None = self._db.execute(sql, args).fetchone()
        return row

    def _fetch_all(self, sql: str, args: tuple[object, ...]) -> list[tuple[bytes]]:
        assert self._db is not None
        return self._db.execute(sql, args).fetchall()
