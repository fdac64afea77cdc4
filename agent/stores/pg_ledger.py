"""The ledger on PostgreSQL: the same records and rules as the embedded one, safe across instances."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.actions.ledger import SEED_ACCOUNTS, SEED_INVOICES, Account, Invoice

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool

__all__ = ("LEDGER_MIGRATIONS", "PostgresLedger")

LEDGER_MIGRATIONS = [
    """CREATE TABLE ledger_invoices (
        invoice_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, currency TEXT NOT NULL
    )""",
    "CREATE TABLE ledger_accounts (account_id TEXT PRIMARY KEY, plan TEXT NOT NULL, deleted_at TEXT)",
    """CREATE TABLE ledger_refunds (
        approval_id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL REFERENCES ledger_invoices,
        amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL
    )""",
]


class PostgresLedger:
    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self._pool = pool

    async def seed(self) -> None:
        async with self._pool.connection() as connection, connection.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO ledger_invoices VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING", SEED_INVOICES
            )
            await cursor.executemany(
                "INSERT INTO ledger_accounts (account_id, plan) VALUES (%s, %s) ON CONFLICT DO NOTHING", SEED_ACCOUNTS
            )

    async def invoice(self, invoice_id: str) -> Invoice | None:
        row = await self._row("SELECT * FROM ledger_invoices WHERE invoice_id = %s", invoice_id)
        return Invoice(**row) if row else None

    async def account(self, account_id: str) -> Account | None:
        row = await self._row("SELECT * FROM ledger_accounts WHERE account_id = %s", account_id)
        return Account(**row) if row else None

    async def record_refund(self, approval_id: str, invoice: Invoice, at: str) -> bool:
        async with self._pool.connection() as connection, connection.transaction():
            # the invoice row is the lock: two instances refunding it at once take turns
            await connection.execute(
                "SELECT 1 FROM ledger_invoices WHERE invoice_id = %s FOR UPDATE", (invoice.invoice_id,)
            )
            if await (
                await connection.execute("SELECT 1 FROM ledger_refunds WHERE approval_id = %s", (approval_id,))
            ).fetchone():
                return True
            row = await (
                await connection.execute(
                    "SELECT COALESCE(SUM(amount_cents), 0) AS refunded FROM ledger_refunds WHERE invoice_id = %s",
                    (invoice.invoice_id,),
                )
            ).fetchone()
            remaining = invoice.amount_cents - int(row["refunded"] if row else 0)
            if remaining <= 0:
                return False
            await connection.execute(
                "INSERT INTO ledger_refunds VALUES (%s, %s, %s, %s)", (approval_id, invoice.invoice_id, remaining, at)
            )
            return True

    async def delete_account(self, account_id: str, at: str) -> bool:
        async with self._pool.connection() as connection:
            cursor = await connection.execute(
                "UPDATE ledger_accounts SET deleted_at = %s WHERE account_id = %s AND deleted_at IS NULL",
                (at, account_id),
            )
            deleted: bool = cursor.rowcount == 1
            return deleted

    async def _row(self, query: str, key: str) -> dict[str, Any] | None:
        async with self._pool.connection() as connection:
            row: dict[str, Any] | None = await (await connection.execute(query, (key,))).fetchone()
        return row
