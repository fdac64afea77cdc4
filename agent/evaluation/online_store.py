"""Where online evaluation keeps its scores: ``online_eval.sqlite`` in the data directory, or PostgreSQL's
``online_eval_*`` tables with the shared stores (``agent.evaluation.online_store_pg``).

Three tables: the scores (run id, assistant, scorer, value, passed, a reason code, when the run finished), one
row per scored run (who scored it, which is what makes a run scored once: the row and the run's scores are
written in one transaction, and a run that has its row already is not scored again) and the cursor, the
``(changed_at, run_id)`` position in the event log's finished runs up to which every run has been looked at.
Nothing here is a word the run said: numbers and codes (ADR 48).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

from agent.evaluation.online import OnlineScore
from agent.stores.private_files import private_sqlite_files

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence
    from pathlib import Path

    from agent.config import AgentConfig

__all__ = ("ONLINE_EVAL_FILE", "OnlineScoreStore", "SqliteOnlineScores", "open_online_scores")

ONLINE_EVAL_FILE = "online_eval.sqlite"
Position = tuple[str, str]
"""``(changed_at, run_id)`` of a finished run in the event log."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS online_eval_scores (
    run_id TEXT NOT NULL, assistant TEXT NOT NULL, scorer TEXT NOT NULL, value REAL NOT NULL,
    passed INTEGER NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (run_id, scorer)
);
CREATE INDEX IF NOT EXISTS online_eval_scores_by_age ON online_eval_scores (at);
CREATE TABLE IF NOT EXISTS online_eval_runs (run_id TEXT PRIMARY KEY, scored_by TEXT NOT NULL, scored_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS online_eval_cursor (
    name TEXT PRIMARY KEY, changed_at TEXT NOT NULL, run_id TEXT NOT NULL
);
"""


class OnlineScoreStore(Protocol):
    async def cursor(self) -> Position:
        """Where the last look at the finished runs stopped (``("", "")`` before the first)."""
        ...

    async def advance(self, position: Position) -> None:
        """Move the cursor to ``position``, never back."""
        ...

    async def record(self, run_id: str, scores: Sequence[OnlineScore], *, scored_by: str, scored_at: str) -> bool:
        """Keep ``scores`` of ``run_id``, unless it was scored already; whether they were kept."""
        ...

    async def scores(self, since: str, until: str, assistant: str | None = None) -> list[OnlineScore]:
        """The scores of the runs that finished in ``[since, until)``, of ``assistant`` or of all."""
        ...

    async def purge(self, before: str) -> int:
        """Remove the scores of the runs that finished before ``before``, and their scored rows; how many runs."""
        ...


class SqliteOnlineScores:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    async def cursor(self) -> Position:
        return await asyncio.to_thread(self._cursor)

    async def advance(self, position: Position) -> None:
        await asyncio.to_thread(self._advance, position)

    async def record(self, run_id: str, scores: Sequence[OnlineScore], *, scored_by: str, scored_at: str) -> bool:
        return await asyncio.to_thread(self._record, run_id, list(scores), scored_by, scored_at)

    async def scores(self, since: str, until: str, assistant: str | None = None) -> list[OnlineScore]:
        return await asyncio.to_thread(self._scores, since, until, assistant)

    async def purge(self, before: str) -> int:
        return await asyncio.to_thread(self._purge, before)

    def _purge(self, before: str) -> int:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "DELETE FROM online_eval_runs WHERE run_id IN "
                    "(SELECT DISTINCT run_id FROM online_eval_scores WHERE at < ?)",
                    (before,),
                )
                removed = self._db.execute(
                    "SELECT count(DISTINCT run_id) FROM online_eval_scores WHERE at < ?", (before,)
                ).fetchone()[0]
                self._db.execute("DELETE FROM online_eval_scores WHERE at < ?", (before,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return int(removed)

    def _cursor(self) -> Position:
        with self._lock:
            row = self._db.execute(
                "SELECT changed_at, run_id FROM online_eval_cursor WHERE name = 'finished'"
            ).fetchone()
        return (row[0], row[1]) if row else ("", "")

    def _advance(self, position: Position) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO online_eval_cursor VALUES ('finished', ?, ?) ON CONFLICT (name) DO UPDATE SET "
                "changed_at = excluded.changed_at, run_id = excluded.run_id "
                "WHERE (excluded.changed_at, excluded.run_id) > (changed_at, run_id)",
                position,
            )

    def _record(self, run_id: str, scores: list[OnlineScore], scored_by: str, scored_at: str) -> bool:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                kept = self._db.execute(
                    "INSERT INTO online_eval_runs VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING",
                    (run_id, scored_by, scored_at),
                ).rowcount
                if kept:
                    self._db.executemany(
                        "INSERT INTO online_eval_scores VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(s.run_id, s.assistant, s.scorer, s.value, int(s.passed), s.reason, s.at) for s in scores],
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return bool(kept)

    def _scores(self, since: str, until: str, assistant: str | None) -> list[OnlineScore]:
        with self._lock:
            rows = self._db.execute(
                "SELECT run_id, assistant, scorer, value, passed, reason, at FROM online_eval_scores "
                "WHERE at >= ? AND at < ? AND (? IS NULL OR assistant = ?) ORDER BY at, run_id, scorer",
                (since, until, assistant, assistant),
            ).fetchall()
        return [_score(row) for row in rows]


def _score(row: Sequence[Any]) -> OnlineScore:
    run_id, assistant, scorer, value, passed, reason, at = row
    return OnlineScore(
        run_id=run_id, assistant=assistant, scorer=scorer, value=value, passed=bool(passed), reason=reason, at=at
    )


@asynccontextmanager
async def open_online_scores(config: AgentConfig, database: Any = None) -> AsyncIterator[OnlineScoreStore]:
    """The score store of ``config``'s stores: PostgreSQL on ``database`` (the shared stores' pool; opened from
    ``config.database_url`` when not given), else the data directory's SQLite file."""
    if config.database_url is None:
        await asyncio.to_thread(private_sqlite_files, config.data_dir, ONLINE_EVAL_FILE)
        store = SqliteOnlineScores(config.data_dir / ONLINE_EVAL_FILE)
        try:
            yield store
        finally:
            store.close()
        return
    from agent.evaluation.online_store_pg import PostgresOnlineScores, open_postgres_online_scores

    if database is not None:
        yield await PostgresOnlineScores.migrated(database)
        return
    async with open_postgres_online_scores(config.database_url) as shared:
        yield shared
