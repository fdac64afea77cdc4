"""The shared cron store: table ``harness_crons`` on the service's PostgreSQL pool, migrated under the service's
migration lock. Its claim is ``SELECT ... FOR UPDATE SKIP LOCKED`` in the transaction that moves the claimed crons
on: two instances claiming at once take different crons, and a cron taken by one is no longer due for the other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.stores.postgres import apply_migrations, migration_lock
from api.crons.base import CronRecord, claim, decode_body, encode_body, owner_key

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from psycopg_pool import AsyncConnectionPool

    from agent import Sealer

__all__ = ("PostgresCronStore",)

MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS harness_crons ("
    " cron_id TEXT PRIMARY KEY, owner TEXT NOT NULL, thread_id TEXT, enabled BOOLEAN NOT NULL,"
    " next_run_ms BIGINT, firing_ms BIGINT, claimed_until_ms BIGINT, body BYTEA NOT NULL)",
    "CREATE INDEX IF NOT EXISTS harness_crons_due ON harness_crons (next_run_ms) WHERE enabled",
    "CREATE INDEX IF NOT EXISTS harness_crons_owner ON harness_crons (owner)",
    "CREATE INDEX IF NOT EXISTS harness_crons_thread ON harness_crons (thread_id) WHERE thread_id IS NOT NULL",
)
_COLUMNS = "cron_id, body, enabled, next_run_ms, firing_ms, claimed_until_ms"


class PostgresCronStore:
    def __init__(self, pool: AsyncConnectionPool[Any], sealer: Sealer | None = None) -> None:
        self._pool = pool
        self._sealer = sealer

    async def migrate(self) -> None:
        async with migration_lock(self._pool) as connection:
            await apply_migrations(connection, "crons", MIGRATIONS)

    async def put(self, record: CronRecord, *, reschedule: bool = True) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "INSERT INTO harness_crons (cron_id, owner, thread_id, enabled, next_run_ms, body)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (cron_id) DO UPDATE SET enabled = EXCLUDED.enabled,"
                " body = EXCLUDED.body,"
                " next_run_ms = CASE WHEN %s THEN EXCLUDED.next_run_ms ELSE harness_crons.next_run_ms END",
                (
                    record.cron_id,
                    owner_key(record.owner),
                    record.thread_id,
                    record.enabled,
                    record.next_run_ms,
                    encode_body(record, self._sealer),
                    reschedule,
                ),
            )

    async def get(self, cron_id: str) -> CronRecord | None:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(f"SELECT {_COLUMNS} FROM harness_crons WHERE cron_id = %s", (cron_id,))
            row = await cursor.fetchone()
        return None if row is None else self._record(row)

    async def of_owner(self, owner: str | None) -> list[CronRecord]:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                f"SELECT {_COLUMNS} FROM harness_crons WHERE owner = %s", (owner_key(owner),)
            )
            rows = await cursor.fetchall()
        return [self._record(row) for row in rows]

    async def delete(self, cron_id: str) -> bool:
        async with self._pool.connection() as connection:
            cursor = await connection.execute("DELETE FROM harness_crons WHERE cron_id = %s", (cron_id,))
            return bool(cursor.rowcount > 0)

    async def claim_due(
        self, now_ms: int, lease_ms: int, advance: Callable[[CronRecord, int], int | None], limit: int
    ) -> list[CronRecord]:
        async with self._pool.connection() as connection, connection.transaction():
            cursor = await connection.execute(
                f"SELECT {_COLUMNS} FROM harness_crons"
                " WHERE (enabled AND firing_ms IS NULL AND next_run_ms <= %s)"
                " OR (firing_ms IS NOT NULL AND claimed_until_ms < %s)"
                " ORDER BY COALESCE(firing_ms, next_run_ms) LIMIT %s FOR UPDATE SKIP LOCKED",
                (now_ms, now_ms, limit),
            )
            claimed = [claim(self._record(row), now_ms, lease_ms, advance) for row in await cursor.fetchall()]
            if claimed:
                async with connection.cursor() as updating:
                    await updating.executemany(
                        "UPDATE harness_crons SET firing_ms = %s, next_run_ms = %s, claimed_until_ms = %s"
                        " WHERE cron_id = %s",
                        [(c.firing_ms, c.next_run_ms, c.claimed_until_ms, c.cron_id) for c in claimed],
                    )
        return claimed

    async def renew(self, cron_id: str, firing_ms: int, until_ms: int) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "UPDATE harness_crons SET claimed_until_ms = %s WHERE cron_id = %s AND firing_ms = %s",
                (until_ms, cron_id, firing_ms),
            )

    async def fired(self, cron_id: str, firing_ms: int) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "UPDATE harness_crons SET firing_ms = NULL, claimed_until_ms = NULL"
                " WHERE cron_id = %s AND firing_ms = %s",
                (cron_id, firing_ms),
            )

    async def forget_threads(self, thread_ids: Sequence[str]) -> int:
        return await self._delete_where("thread_id", thread_ids)

    async def forget_owners(self, owners: Sequence[str]) -> int:
        return await self._delete_where("owner", owners)

    async def close(self) -> None:
        """The pool is the service's: nothing of the cron store's own to close."""

    async def _delete_where(self, column: str, values: Sequence[str]) -> int:
        if not values:
            return 0
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                f"DELETE FROM harness_crons WHERE {column} = ANY(%s)",  # a column of ours, never a client's
                (list(values),),
            )
            return int(cursor.rowcount)

    def _record(self, row: dict[str, Any]) -> CronRecord:
        return decode_body(
            row["cron_id"],
            row["body"],
            self._sealer,
            enabled=row["enabled"],
            next_run_ms=row["next_run_ms"],
            firing_ms=row["firing_ms"],
            claimed_until_ms=row["claimed_until_ms"],
        )
