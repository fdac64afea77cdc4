"""The in-app ledger the actions change: invoices, accounts and what was done to them, in SQLite."""

from __future__ import annotations

import sqlite3
import threading
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ("Account", "Invoice", "Ledger")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS invoices (
    invoice_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, currency TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (account_id TEXT PRIMARY KEY, plan TEXT NOT NULL, deleted_at TEXT);
CREATE TABLE IF NOT EXISTS refunds (
    approval_id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL
);
"""
_SEED_INVOICES = [
    ("INV-1001", "ACC-2001", 4200, "USD"),
    ("INV-1002", "ACC-2001", 12000, "USD"),
    ("INV-1003", "ACC-2002", 2500, "EUR"),
    ("INV-1004", "ACC-2003", 30000, "GBP"),
    ("INV-1005", "ACC-2002", 1200, "USD"),
]
_SEED_ACCOUNTS = [("ACC-2001", "Team"), ("ACC-2002", "Business"), ("ACC-2003", "Free")]


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


class Ledger:
    """A small synchronous store; the action nodes call it from a worker thread."""

    def __init__(self, path: Path | str) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db.executemany("INSERT OR IGNORE INTO invoices VALUES (?, ?, ?, ?)", _SEED_INVOICES)
        self._db.executemany("INSERT OR IGNORE INTO accounts (account_id, plan) VALUES (?, ?)", _SEED_ACCOUNTS)

    def close(self) -> None:
        self._db.close()

    def invoice(self, invoice_id: str) -> Invoice | None:
        row = self._db.execute("SELECT * FROM invoices WHERE invoice_id = ?", (invoice_id,)).fetchone()
        return Invoice(invoice_id=row[0], account_id=row[1], amount_cents=row[2], currency=row[3]) if row else None

    def account(self, account_id: str) -> Account | None:
        row = self._db.execute("SELECT * FROM accounts WHERE account_id = ?", (account_id,)).fetchone()
        return Account(account_id=row[0], plan=row[1], deleted_at=row[2]) if row else None

    def refunded_cents(self, invoice_id: str) -> int:
        row = self._db.execute("SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE invoice_id = ?", (invoice_id,))
        return int(row.fetchone()[0])

    def record_refund(self, approval_id: str, invoice: Invoice, at: str) -> bool:
        """Refund the rest of ``invoice`` once per approval; False when nothing was left to refund."""
        with self._lock:
            if self._db.execute("SELECT 1 FROM refunds WHERE approval_id = ?", (approval_id,)).fetchone():
                return True
            remaining = invoice.amount_cents - self.refunded_cents(invoice.invoice_id)
            if remaining <= 0:
                return False
            self._db.execute(
                "INSERT INTO refunds VALUES (?, ?, ?, ?)", (approval_id, invoice.invoice_id, remaining, at)
            )
            return True

    def delete_account(self, account_id: str, at: str) -> bool:
        """Mark the account deleted; False when it already was."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE accounts SET deleted_at = ? WHERE account_id = ? AND deleted_at IS NULL",
                (at, account_id),
            )
            return cursor.rowcount == 1
