"""The runs' records in PostgreSQL: the durable copy of what Redis holds while runs are live.

Redis is the authority for a live run (its record changes atomically with its events there); every record
it commits is copied here right after, so runs outlive Redis's memory and can be listed and queried.
A copy never goes back in time: a record with a lower ``last_seq`` than the stored one is ignored.

An erased run leaves a tombstone: its id alone, with a ``last_seq`` no copy can reach, so a copy still on
its way from another instance cannot bring the run back. Tombstones go a day later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from api.runs.log.records import open_record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from psycopg_pool import AsyncConnectionPool

    from agent import Sealer
    from api.runs.log.records import EncodedRecord, RunRecord

__all__ = ("RunArchive",)

_UNREACHABLE_SEQ = 2**63 - 1
"""A tombstone's ``last_seq``: above every copy's, so none replaces it."""


class RunArchive:
    MIGRATIONS: ClassVar[list[str]] = [
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL, last_seq BIGINT NOT NULL,
            record BYTEA NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )""",
        "CREATE INDEX runs_by_session ON runs (session_id)",
        "CREATE INDEX runs_by_status ON runs (status)",
        "ALTER TABLE runs ADD COLUMN changed_at TEXT NOT NULL DEFAULT ''",
        "UPDATE runs SET changed_at = convert_from(record, 'UTF8')::jsonb #>> '{snapshot,updated_at}'",
        "ALTER TABLE runs ADD COLUMN account_id TEXT",
        "CREATE INDEX runs_finished_by_age ON runs (changed_at) WHERE status IN ('completed', 'failed', 'cancelled')",
        "CREATE INDEX runs_by_account ON runs (account_id) WHERE account_id IS NOT NULL",
    ]

    def __init__(self, pool: AsyncConnectionPool[Any], sealer: Sealer | None = None) -> None:
        self._pool = pool
        self._sealer = sealer
        """Opens the records, which the Redis log seals (``RedisEventLog._encoded``) before they get here."""

    async def save(self, records: Sequence[EncodedRecord]) -> None:
        async with self._pool.connection() as connection, connection.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO runs (run_id, session_id, status, last_seq, record, changed_at, account_id) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, last_seq = excluded.last_seq, "
                "record = excluded.record, changed_at = excluded.changed_at, updated_at = now() "
                "WHERE runs.last_seq <= excluded.last_seq",
                [(r.run_id, r.session_id, r.status, r.last_seq, r.data, r.changed_at, r.account_id) for r in records],
            )

    async def load(self, run_id: str) -> RunRecord | None:
        rows = await self._rows("SELECT record FROM runs WHERE run_id = %s AND status <> 'erased'", run_id)
        return open_record(self._sealer, run_id, bytes(rows[0]["record"])) if rows else None

    async def session_creators(self) -> dict[str, str | None]:
        """Each archived session's owner, as its first run recorded it: what said who owned a session before
        ``SessionOwners`` did (the backfill at start)."""
        rows = await self._rows(
            "SELECT DISTINCT ON (session_id) session_id, run_id, record FROM runs WHERE status <> 'erased' "
            "ORDER BY session_id, changed_at"
        )
        return {row["session_id"]: open_record(self._sealer, row["run_id"], bytes(row["record"])).owner for row in rows}

    async def session_runs(self, session_ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = await self._rows("SELECT session_id, run_id FROM runs WHERE session_id = ANY(%s)", list(session_ids))
        return [(row["session_id"], row["run_id"]) for row in rows]

    async def account_sessions(self, account_id: str) -> list[str]:
        rows = await self._rows("SELECT DISTINCT session_id FROM runs WHERE account_id = %s", account_id)
        return [row["session_id"] for row in rows]

    async def expired(self, before: str, limit: int) -> list[tuple[str, str]]:
        rows = await self._rows(
            "SELECT run_id, session_id FROM runs WHERE status IN ('completed', 'failed', 'cancelled') "
            "AND changed_at < %s ORDER BY changed_at LIMIT %s",
            before,
            limit,
        )
        return [(row["run_id"], row["session_id"]) for row in rows]

    async def finished(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]:
        rows = await self._rows(
            "SELECT changed_at, run_id FROM runs WHERE status IN ('completed', 'failed', 'cancelled') "
            "AND changed_at < %s AND (changed_at, run_id) > (%s, %s) ORDER BY changed_at, run_id LIMIT %s",
            before,
            after[0],
            after[1],
            limit,
        )
        return [(row["changed_at"], row["run_id"]) for row in rows]

    async def idle_sessions(self, before: str, limit: int) -> list[str]:
        rows = await self._rows(
            "SELECT session_id FROM runs WHERE status <> 'erased' GROUP BY session_id "
            "HAVING MAX(changed_at) < %s AND bool_and(status IN ('completed', 'failed', 'cancelled')) "
            "ORDER BY MAX(changed_at) LIMIT %s",
            before,
            limit,
        )
        return [row["session_id"] for row in rows]

    async def erase(self, run_ids: Sequence[str]) -> None:
        """Replace the runs by tombstones; remove the tombstones older than a day."""
        async with self._pool.connection() as connection, connection.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO runs (run_id, session_id, status, last_seq, record) VALUES (%s, '', 'erased', %s, '') "
                "ON CONFLICT (run_id) DO UPDATE SET session_id = '', status = 'erased', last_seq = excluded.last_seq, "
                "record = '', changed_at = '', account_id = NULL, updated_at = now()",
                [(run_id, _UNREACHABLE_SEQ) for run_id in run_ids],
            )
            await cursor.execute("DELETE FROM runs WHERE status = 'erased' AND updated_at < now() - interval '1 day'")

    async def _rows(self, sql: str, *args: object) -> list[dict[str, Any]]:
        async with self._pool.connection() as connection:
            found = await connection.execute(sql, args)
            rows: list[dict[str, Any]] = await found.fetchall()
        return rows
