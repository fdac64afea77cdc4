"""The embedded event log's file: its tables, the columns and indexes a data directory from before gains as it
opens, and the connections to it (WAL, overwritten on delete)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from agent.stores import private_sqlite_file
from api.runs.log.records import StoredEvent
from api.runs.log.sqlite_batches import encode_events

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ("connect", "open_database")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS event_batches (
    run_id TEXT NOT NULL, last_seq INTEGER NOT NULL, first_seq INTEGER NOT NULL, held INTEGER NOT NULL,
    events BLOB NOT NULL,
    PRIMARY KEY (run_id, last_seq)
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL,
    trimmed_through INTEGER NOT NULL DEFAULT 1, record BLOB NOT NULL,
    changed_at TEXT NOT NULL DEFAULT '', account_id TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs (session_id);
CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, owner TEXT);
CREATE TABLE IF NOT EXISTS session_erasures (session_id TEXT PRIMARY KEY, holder TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS threads (thread_id TEXT PRIMARY KEY, record BLOB NOT NULL);
"""
_ADDED_COLUMNS = {
    "changed_at": (
        "ALTER TABLE runs ADD COLUMN changed_at TEXT NOT NULL DEFAULT ''",
        "UPDATE runs SET changed_at = json_extract(CAST(record AS TEXT), '$.snapshot.updated_at')",
    ),
    "account_id": ("ALTER TABLE runs ADD COLUMN account_id TEXT",),
}
"""Columns a data directory from before retention and erasure lacks, and how it gets them."""
_LATER_INDEXES = """
CREATE INDEX IF NOT EXISTS runs_finished_by_age ON runs (changed_at)
    WHERE status IN ('completed', 'failed', 'cancelled');
CREATE INDEX IF NOT EXISTS runs_by_account ON runs (account_id) WHERE account_id IS NOT NULL;
"""


def open_database(path: Path) -> sqlite3.Connection:
    """The store thread's connection, the tables made or brought up to date."""
    private_sqlite_file(path)
    db = connect(path)
    db.executescript(_SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    for column, statements in _ADDED_COLUMNS.items():
        if column not in columns:
            for statement in statements:
                db.execute(statement)
    db.executescript(_LATER_INDEXES)
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone():
        _move_events_into_batches(db)
    return db


def connect(path: Path, **pragmas: int) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA secure_delete=ON")  # what is removed is overwritten, not left in free pages
    db.execute("PRAGMA busy_timeout=5000")
    for name, value in pragmas.items():
        db.execute(f"PRAGMA {name}={value}")
    return db


def _move_events_into_batches(db: sqlite3.Connection) -> None:
    """A data directory from before batched storage kept one row per event: each run's become one batch."""
    db.execute("BEGIN")
    try:
        run_ids = [run_id for (run_id,) in db.execute("SELECT DISTINCT run_id FROM events")]
        for run_id in run_ids:
            held = [
                StoredEvent(seq, kind, frame)
                for seq, kind, frame in db.execute(
                    "SELECT seq, type, frame FROM events WHERE run_id = ? ORDER BY seq", (run_id,)
                )
            ]
            db.execute(
                "INSERT INTO event_batches VALUES (?, ?, ?, ?, ?)",
                (run_id, held[-1].seq, held[0].seq, len(held), encode_events(held)),
            )
        db.execute("DROP TABLE events")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
