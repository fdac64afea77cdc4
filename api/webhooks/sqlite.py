"""The embedded outbox: ``webhooks.sqlite`` in the data directory, read and written on the loop (a row per run with
a webhook, small). One process serves it; its claim is a write transaction all the same, and the leases of a
process that stopped are simply run out when the next one starts."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from agent.stores import private_sqlite_file
from api.webhooks.base import Delivery

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

__all__ = ("SqliteOutbox",)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    run_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    due_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    checks INTEGER NOT NULL DEFAULT 0,
    claimed_until_ms INTEGER,
    holder TEXT
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (due_ms);
CREATE INDEX IF NOT EXISTS webhook_deliveries_session ON webhook_deliveries (session_id);
"""
_COLUMNS = "run_id, session_id, created_ms, attempts, checks"


class SqliteOutbox:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(private_sqlite_file(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.executescript(_SCHEMA)
        self._db.execute("UPDATE webhook_deliveries SET claimed_until_ms = NULL, holder = NULL")

    async def add(self, delivery: Delivery, due_ms: int) -> None:
        self._db.execute(
            "INSERT INTO webhook_deliveries (run_id, session_id, created_ms, due_ms) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (run_id) DO NOTHING",
            (delivery.run_id, delivery.session_id, delivery.created_ms, due_ms),
        )

    async def make_due(self, run_ids: Sequence[str], now_ms: int) -> None:
        self._db.executemany(
            "UPDATE webhook_deliveries SET due_ms = ? WHERE run_id = ? AND attempts = 0 AND due_ms > ?",
            [(now_ms, run_id, now_ms) for run_id in run_ids],
        )

    async def claim(self, now_ms: int, lease_ms: int, holder: str, limit: int) -> list[Delivery]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM webhook_deliveries WHERE due_ms <= ?"
                " AND (claimed_until_ms IS NULL OR claimed_until_ms < ?) ORDER BY due_ms LIMIT ?",
                (now_ms, now_ms, limit),
            ).fetchall()
            self._db.executemany(
                "UPDATE webhook_deliveries SET claimed_until_ms = ?, holder = ? WHERE run_id = ?",
                [(now_ms + lease_ms, holder, row[0]) for row in rows],
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return [Delivery(run_id=r[0], session_id=r[1], created_ms=r[2], attempts=r[3], checks=r[4]) for r in rows]

    async def later(self, delivery: Delivery, holder: str, due_ms: int) -> None:
        self._db.execute(
            "UPDATE webhook_deliveries SET due_ms = ?, attempts = ?, checks = ?, claimed_until_ms = NULL,"
            " holder = NULL WHERE run_id = ? AND holder = ?",
            (due_ms, delivery.attempts, delivery.checks, delivery.run_id, holder),
        )

    async def done(self, run_id: str, holder: str) -> bool:
        cursor = self._db.execute("DELETE FROM webhook_deliveries WHERE run_id = ? AND holder = ?", (run_id, holder))
        return cursor.rowcount > 0

    async def release(self, holder: str) -> None:
        self._db.execute(
            "UPDATE webhook_deliveries SET claimed_until_ms = NULL, holder = NULL WHERE holder = ?", (holder,)
        )

    async def forget(self, run_ids: Sequence[str], session_ids: Sequence[str]) -> int:
        gone = 0
        for run_id in run_ids:
            gone += self._db.execute("DELETE FROM webhook_deliveries WHERE run_id = ?", (run_id,)).rowcount
        for session_id in session_ids:
            gone += self._db.execute("DELETE FROM webhook_deliveries WHERE session_id = ?", (session_id,)).rowcount
        return gone

    async def close(self) -> None:
        self._db.close()
