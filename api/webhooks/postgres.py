"""The shared outbox: table ``harness_webhook_deliveries`` on the service's PostgreSQL pool, migrated under the
service's migration lock. Its claim is ``SELECT ... FOR UPDATE SKIP LOCKED`` in the statement that leases the rows
it took: two instances claiming at once take different deliveries, and a delivery leased by one is not due for the
other until the lease has run out (its instance died mid-attempt)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.stores.postgres import apply_migrations, migration_lock
from api.webhooks.base import Delivery

if TYPE_CHECKING:
    from collections.abc import Sequence

    from psycopg_pool import AsyncConnectionPool

__all__ = ("PostgresOutbox",)

MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS harness_webhook_deliveries ("
    " run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_ms BIGINT NOT NULL, due_ms BIGINT NOT NULL,"
    " attempts INTEGER NOT NULL DEFAULT 0, checks INTEGER NOT NULL DEFAULT 0, claimed_until_ms BIGINT, holder TEXT)",
    "CREATE INDEX IF NOT EXISTS harness_webhook_deliveries_due ON harness_webhook_deliveries (due_ms)",
    "CREATE INDEX IF NOT EXISTS harness_webhook_deliveries_session ON harness_webhook_deliveries (session_id)",
)
_COLUMNS = "run_id, session_id, created_ms, attempts, checks"


class PostgresOutbox:
    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self._pool = pool

    async def migrate(self) -> None:
        async with migration_lock(self._pool) as connection:
            await apply_migrations(connection, "webhooks", MIGRATIONS)

    async def add(self, delivery: Delivery, due_ms: int) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "INSERT INTO harness_webhook_deliveries (run_id, session_id, created_ms, due_ms)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (run_id) DO NOTHING",
                (delivery.run_id, delivery.session_id, delivery.created_ms, due_ms),
            )

    async def make_due(self, run_ids: Sequence[str], now_ms: int) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "UPDATE harness_webhook_deliveries SET due_ms = %s"
                " WHERE run_id = ANY(%s) AND attempts = 0 AND due_ms > %s",
                (now_ms, list(run_ids), now_ms),
            )

    async def claim(self, now_ms: int, lease_ms: int, holder: str, limit: int) -> list[Delivery]:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                "UPDATE harness_webhook_deliveries SET claimed_until_ms = %s, holder = %s WHERE run_id IN ("
                " SELECT run_id FROM harness_webhook_deliveries WHERE due_ms <= %s"
                " AND (claimed_until_ms IS NULL OR claimed_until_ms < %s)"
                " ORDER BY due_ms LIMIT %s FOR UPDATE SKIP LOCKED)"
                f" RETURNING {_COLUMNS}",
                (now_ms + lease_ms, holder, now_ms, now_ms, limit),
            )
            rows = await cursor.fetchall()
        return [Delivery(**row) for row in rows]

    async def later(self, delivery: Delivery, holder: str, due_ms: int) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "UPDATE harness_webhook_deliveries SET due_ms = %s, attempts = %s, checks = %s,"
                " claimed_until_ms = NULL, holder = NULL WHERE run_id = %s AND holder = %s",
                (due_ms, delivery.attempts, delivery.checks, delivery.run_id, holder),
            )

    async def done(self, run_id: str, holder: str) -> bool:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                "DELETE FROM harness_webhook_deliveries WHERE run_id = %s AND holder = %s", (run_id, holder)
            )
            return bool(cursor.rowcount > 0)

    async def release(self, holder: str) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(
                "UPDATE harness_webhook_deliveries SET claimed_until_ms = NULL, holder = NULL WHERE holder = %s",
                (holder,),
            )

    async def forget(self, run_ids: Sequence[str], session_ids: Sequence[str]) -> int:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                "DELETE FROM harness_webhook_deliveries WHERE run_id = ANY(%s) OR session_id = ANY(%s)",
                (list(run_ids), list(session_ids)),
            )
            return int(cursor.rowcount)

    async def close(self) -> None:
        return None
