"""The embedded cron store: ``crons.sqlite`` in the data directory, read and written on the loop (a cron's rows are
few and small). One process serves it, so its claim needs no lock beyond SQLite's own write transaction."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from agent.stores import private_sqlite_file
from api.crons.base import CronRecord, claim, decode_body, encode_body, owner_key

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from agent import Sealer

__all__ = ("SqliteCronStore",)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS crons (
    cron_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    thread_id TEXT,
    enabled INTEGER NOT NULL,
    next_run_ms INTEGER,
    firing_ms INTEGER,
    claimed_until_ms INTEGER,
    body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS crons_due ON crons (next_run_ms) WHERE enabled = 1;
CREATE INDEX IF NOT EXISTS crons_owner ON crons (owner);
CREATE INDEX IF NOT EXISTS crons_thread ON crons (thread_id) WHERE thread_id IS NOT NULL;
"""
_COLUMNS = "cron_id, body, enabled, next_run_ms, firing_ms, claimed_until_ms"


class SqliteCronStore:
    def __init__(self, path: Path, sealer: Sealer | None = None) -> None:
        self._db = sqlite3.connect(private_sqlite_file(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.executescript(_SCHEMA)
        self._sealer = sealer

    async def put(self, record: CronRecord, *, reschedule: bool = True) -> None:
        self._db.execute(
            "INSERT INTO crons (cron_id, owner, thread_id, enabled, next_run_ms, body) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (cron_id) DO UPDATE SET enabled = excluded.enabled, body = excluded.body,"
            " next_run_ms = CASE WHEN ? THEN excluded.next_run_ms ELSE crons.next_run_ms END",
            (
                record.cron_id,
                owner_key(record.owner),
                record.thread_id,
                int(record.enabled),
                record.next_run_ms,
                encode_body(record, self._sealer),
                reschedule,
            ),
        )

    async def get(self, cron_id: str) -> CronRecord | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM crons WHERE cron_id = ?", (cron_id,)).fetchone()
        return None if row is None else self._record(row)

    async def of_owner(self, owner: str | None) -> list[CronRecord]:
        rows = self._db.execute(f"SELECT {_COLUMNS} FROM crons WHERE owner = ?", (owner_key(owner),)).fetchall()
        return [self._record(row) for row in rows]

    async def delete(self, cron_id: str) -> bool:
        return self._db.execute("DELETE FROM crons WHERE cron_id = ?", (cron_id,)).rowcount > 0

    async def claim_due(
        self, now_ms: int, lease_ms: int, advance: Callable[[CronRecord, int], int | None], limit: int
    ) -> list[CronRecord]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM crons"
                " WHERE (enabled = 1 AND firing_ms IS NULL AND next_run_ms <= ?)"
                " OR (firing_ms IS NOT NULL AND claimed_until_ms < ?)"
                " ORDER BY COALESCE(firing_ms, next_run_ms) LIMIT ?",
                (now_ms, now_ms, limit),
            ).fetchall()
            claimed = [claim(self._record(row), now_ms, lease_ms, advance) for row in rows]
            self._db.executemany(
                "UPDATE crons SET firing_ms = ?, next_run_ms = ?, claimed_until_ms = ? WHERE cron_id = ?",
                [(c.firing_ms, c.next_run_ms, c.claimed_until_ms, c.cron_id) for c in claimed],
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return claimed

    async def renew(self, cron_id: str, firing_ms: int, until_ms: int) -> None:
        self._db.execute(
            "UPDATE crons SET claimed_until_ms = ? WHERE cron_id = ? AND firing_ms = ?", (until_ms, cron_id, firing_ms)
        )

    async def fired(self, cron_id: str, firing_ms: int) -> None:
        self._db.execute(
            "UPDATE crons SET firing_ms = NULL, claimed_until_ms = NULL WHERE cron_id = ? AND firing_ms = ?",
            (cron_id, firing_ms),
        )

    async def forget_threads(self, thread_ids: Sequence[str]) -> int:
        return self._db.executemany("DELETE FROM crons WHERE thread_id = ?", [(t,) for t in thread_ids]).rowcount

    async def forget_owners(self, owners: Sequence[str]) -> int:
        return self._db.executemany("DELETE FROM crons WHERE owner = ?", [(o,) for o in owners]).rowcount

    async def close(self) -> None:
        self._db.close()

    def _record(self, row: tuple[str, bytes, int, int | None, int | None, int | None]) -> CronRecord:
        cron_id, body, enabled, next_run_ms, firing_ms, claimed_until_ms = row
        return decode_body(
            cron_id,
            body,
            self._sealer,
            enabled=bool(enabled),
            next_run_ms=next_run_ms,
            firing_ms=firing_ms,
            claimed_until_ms=claimed_until_ms,
        )
