"""Leaving nothing removed in a SQLite store's files, after an erasure or a purge.

``secure_delete`` (set on every connection) overwrites a deleted row where it lay, but not the copies of it
that earlier page splits left in the unused parts of other pages, and the write-ahead log still holds the
pages as they were. ``VACUUM`` rewrites the database from its live rows alone; the checkpoint then folds the
log into the database and truncates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

__all__ = ("SCRUB", "scrub")

SCRUB = ("VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)")


def scrub(db: sqlite3.Connection) -> None:
    """Run ``SCRUB`` on ``db`` (outside a transaction)."""
    for statement in SCRUB:
        db.execute(statement).fetchall()
