"""The in-app ledger the actions change: invoices, accounts and what was done to them.

``Ledger`` is what the actions see; ``SqliteLedger`` is the embedded store (the PostgreSQL one lives with
the other shared stores). Every method is a coroutine, so no store ever blocks the event loop.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import TYPE_CHECKING, Protocol

import msgspec

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ("SEED_ACCOUNTS", "SEED_INVOICES", "Account", "Invoice", "Ledger", "SqliteLedger")

SEED_INVOICES = [
    ("INV-1001", "ACC-2001", 4200, "USD"),
    ("INV-1002", "ACC-2001", 12000, "USD"),
    ("INV-1003", "ACC-2002", 2500, "EUR"),
    ("INV-1004", "ACC-2003", 30000, "GBP"),
    ("INV-1005", "ACC-2002", 1200, "USD"),
]
"""The synthetic records the demo knowledge base talks about: ``(invoice_id, account_id, cents, currency)``."""
SEED_ACCOUNTS = [("ACC-2001", "Team"), ("ACC-2002", "Business"), ("ACC-2003", "Free")]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS invoices (
    invoice_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, currency TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (account_id TEXT PRIMARY KEY, plan TEXT NOT NULL, deleted_at TEXT);
CREATE TABLE IF NOT EXISTS refunds (
    approval_id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL
);
"""


class Invoice(msgspec.Struct, frozen=True, kw_only=True):
    invoice_id: str
    account_id: str
    amount_cents: int
    currency: str

    @property
    def amount(self) -> str:
        symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(self.currency, f"{self.currency} ")
        return f"{symbol}{self.amount_cents / 100:,.2f}"


class Account(msgspec.Struct, frozen=True, kw_only=True):
    account_id: str
    plan: str
    deleted_at: str | None


class Ledger(Protocol):
    async def invoice(self, invoice_id: str) -> Invoice | None: ...

    async def account(self, account_id: str) -> Account | None: ...

    async def record_refund(self, approval_id: str, invoice: Invoice, at: str) -> bool:
        """Refund the rest of ``invoice`` once per approval; False when nothing was left to refund."""
        ...

    async def delete_account(self, account_id: str, at: str) -> bool:
        """Mark the account deleted; False when it already was."""
        ...


class SqliteLedger:
    """The embedded ledger: one SQLite file, queried from a worker thread."""

    def __init__(self, path: Path | str) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db.executemany("INSERT OR IGNORE INTO invoices VALUES (?, ?, ?, ?)", SEED_INVOICES)
        self._db.executemany("INSERT OR IGNORE INTO accounts (account_id, plan) VALUES (?, ?)", SEED_ACCOUNTS)

    def close(self) -> None:
        self._db.close()

    async def invoice(self, invoice_id: str) -> Invoice | None:
        return await asyncio.to_thread(self._invoice, invoice_id)

    async def account(self, account_id: str) -> Account | None:
        return await asyncio.to_thread(self._account, account_id)

    async def record_refund(self, approval_id: str, invoice: Invoice, at: str) -> bool:
        return await asyncio.to_thread(self._record_refund, approval_id, invoice, at)

    async def delete_account(self, account_id: str, at: str) -> bool:
        return await asyncio.to_thread(self._delete_account, account_id, at)

    def _invoice(self, invoice_id: str) -> Invoice | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM invoices WHERE invoice_id = ?", (invoice_id,)).fetchone()
        return Invoice(invoice_id=row[0], account_id=row[1], amount_cents=row[2], currency=row[3]) if row else None

    def _account(self, account_id: str) -> Account | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM accounts WHERE account_id = ?", (account_id,)).fetchone()
        return Account(account_id=row[0], plan=row[1], deleted_at=row[2]) if row else None

    def _record_refund(self, approval_id: str, invoice: Invoice, at: str) -> bool:
        with self._lock:
            if self._db.execute("SELECT 1 FROM refunds WHERE approval_id = ?", (approval_id,)).fetchone():
                return True
            refunded = self._db.execute(
                "SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE invoice_id = ?", (invoice.invoice_id,)
            ).fetchone()[0]
            remaining = invoice.amount_cents - int(refunded)
            if remaining <= 0:
                return False
            self._db.execute(
                "INSERT INTO refunds VALUES (?, ?, ?, ?)", (approval_id, invoice.invoice_id, remaining, at)
            )
            return True

    def _delete_account(self, account_id: str, at: str) -> bool:
        with self._lock:
            cursor = self._db.execute(
                "UPDATE accounts SET deleted_at = ? WHERE account_id = ? AND deleted_at IS NULL",
                (at, account_id),
            )
            return cursor.rowcount == 1
