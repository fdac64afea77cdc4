"""The embedded event log's store thread: one worker with its own connection, for what may take long (reads,
erasure, checkpoints), so the event loop never waits for the disk."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Sequence

__all__ = ("StoreThread",)

logger = logging.getLogger(__name__)
_P = ParamSpec("_P")
_T = TypeVar("_T")


class StoreThread:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-log")
        self.db: sqlite3.Connection | None = None
        """The thread's connection, once open."""
        self._checkpoint: asyncio.Future[Any] | None = None

    async def call(self, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: function(*args, **kwargs))

    async def fetch_all(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        return await self.call(self._fetch_all, sql, args)

    async def fetch_in(self, sql: str, ids: Sequence[str], args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """``sql`` whose ``{ids}`` stands for ``ids`` (after the parameters ``args``), in as many statements as
        SQLite takes."""
        return await self.call(self._fetch_in, sql, ids, args)

    async def execute_many(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        await self.call(self._execute_many, sql, rows)

    async def erase_runs(self, run_ids: list[str]) -> int:
        """Remove the runs' records and events; how many events were removed."""
        return await self.call(self._erase_runs, run_ids)

    def start_checkpoint(self) -> bool:
        """Fold the WAL into the database on this thread, appends going on meanwhile, unless a checkpoint is under
        way; whether one started."""
        if self._checkpoint is not None:
            return False
        assert self.db is not None
        checkpoint = asyncio.ensure_future(self.fetch_all("PRAGMA wal_checkpoint(PASSIVE)"))
        checkpoint.add_done_callback(self._checkpoint_done)
        self._checkpoint = checkpoint
        return True

    async def checkpointed(self) -> None:
        """Return once the checkpoint under way, if any, is done."""
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)

    def _checkpoint_done(self, checkpoint: asyncio.Future[Any]) -> None:
        self._checkpoint = None
        if not checkpoint.cancelled() and checkpoint.exception() is not None:
            logger.warning("event log checkpoint failed: %s", checkpoint.exception())

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)

    def _fetch_all(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        assert self.db is not None
        return self.db.execute(sql, args).fetchall()

    def _fetch_in(self, sql: str, ids: Sequence[str], args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        assert self.db is not None
        found: list[tuple[Any, ...]] = []
        for chunk in _chunks(ids):
            found += self.db.execute(sql.format(ids=", ".join("?" * len(chunk))), (*args, *chunk)).fetchall()
        return found

    def _execute_many(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        assert self.db is not None
        db = self.db
        db.execute("BEGIN")
        try:
            db.executemany(sql, rows)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _erase_runs(self, run_ids: list[str]) -> int:
        assert self.db is not None
        db = self.db
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


def _chunks(ids: Sequence[str], size: int = 500) -> list[list[str]]:
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]
