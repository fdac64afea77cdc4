"""The online scores on PostgreSQL, beside the shared stores (``agent.evaluation.online_store``): the same tables,
migrated under the stores' migration lock as a component of their own."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agent.evaluation.online import OnlineScore

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from psycopg_pool import AsyncConnectionPool

__all__ = ("ONLINE_EVAL_MIGRATIONS", "PostgresOnlineScores", "open_postgres_online_scores")

ONLINE_EVAL_MIGRATIONS = [
    """CREATE TABLE online_eval_scores (
        run_id TEXT NOT NULL, assistant TEXT NOT NULL, scorer TEXT NOT NULL, value DOUBLE PRECISION NOT NULL,
        passed BOOLEAN NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (run_id, scorer)
    )""",
    "CREATE INDEX online_eval_scores_by_age ON online_eval_scores (at)",
    "CREATE TABLE online_eval_runs (run_id TEXT PRIMARY KEY, scored_by TEXT NOT NULL, scored_at TEXT NOT NULL)",
    "CREATE TABLE online_eval_cursor (name TEXT PRIMARY KEY, changed_at TEXT NOT NULL, run_id TEXT NOT NULL)",
]


class PostgresOnlineScores:
    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self._pool = pool

    @classmethod
    async def migrated(cls, pool: AsyncConnectionPool[Any]) -> PostgresOnlineScores:
        from agent.stores.postgres import apply_migrations, migration_lock

        async with migration_lock(pool) as connection:
            await apply_migrations(connection, "online_eval", ONLINE_EVAL_MIGRATIONS)
        return cls(pool)

    async def cursor(self) -> tuple[str, str]:
        async with self._pool.connection() as connection:
            row = await (
                await connection.execute("SELECT changed_at, run_id FROM online_eval_cursor WHERE name = 'finished'")
            ).fetchone()
        return (row["changed_at"], row["run_id"]) if row else ("", "")

    async def advance(self, position: tuple[str, str]) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "INSERT INTO online_eval_cursor AS c VALUES ('finished', %s, %s) ON CONFLICT (name) DO UPDATE SET "
                "changed_at = excluded.changed_at, run_id = excluded.run_id "
                "WHERE (excluded.changed_at, excluded.run_id) > (c.changed_at, c.run_id)",
                position,
            )

    async def record(self, run_id: str, scores: Sequence[OnlineScore], *, scored_by: str, scored_at: str) -> bool:
        async with self._pool.connection() as connection, connection.transaction():
            kept = await (
                await connection.execute(
                    "INSERT INTO online_eval_runs VALUES (%s, %s, %s) ON CONFLICT (run_id) DO NOTHING RETURNING run_id",
                    (run_id, scored_by, scored_at),
                )
            ).fetchone()
            if kept is None:
                return False
            async with connection.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO online_eval_scores VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [(s.run_id, s.assistant, s.scorer, s.value, s.passed, s.reason, s.at) for s in scores],
                )
        return True

    async def purge(self, before: str) -> int:
        async with self._pool.connection() as connection, connection.transaction():
            gone = await (
                await connection.execute(
                    "DELETE FROM online_eval_runs WHERE run_id IN "
                    "(SELECT DISTINCT run_id FROM online_eval_scores WHERE at < %s) RETURNING run_id",
                    (before,),
                )
            ).fetchall()
            await connection.execute("DELETE FROM online_eval_scores WHERE at < %s", (before,))
        return len(gone)

    async def scores(self, since: str, until: str, assistant: str | None = None) -> list[OnlineScore]:
        async with self._pool.connection() as connection:
            rows = await (
                await connection.execute(
                    "SELECT run_id, assistant, scorer, value, passed, reason, at FROM online_eval_scores "
                    "WHERE at >= %s AND at < %s AND (%s::text IS NULL OR assistant = %s) ORDER BY at, run_id, scorer",
                    (since, until, assistant, assistant),
                )
            ).fetchall()
        return [OnlineScore(**row) for row in rows]


@asynccontextmanager
async def open_postgres_online_scores(url: str) -> AsyncIterator[PostgresOnlineScores]:
    from agent.stores.postgres import open_pool

    async with open_pool(url) as pool:
        yield await PostgresOnlineScores.migrated(pool)
