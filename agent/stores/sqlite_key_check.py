"""The key check's record and probe in the embedded checkpoints file (``checkpoints.sqlite``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiosqlite

__all__ = ("SqliteKeyCheck",)

_SCHEMA = "CREATE TABLE IF NOT EXISTS harness_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), type TEXT, value BLOB)"


class SqliteKeyCheck:
    def __init__(self, connection: aiosqlite.Connection, where: str) -> None:
        """``connection``: the saver's, after its ``setup()`` (its tables exist)."""
        self._db = connection
        self.where = where

    async def read_record(self) -> tuple[str, bytes] | None:
        await self._db.execute(_SCHEMA)
        async with self._db.execute("SELECT type, value FROM harness_key_check") as cursor:
            row = await cursor.fetchone()
        return (row[0], row[1]) if row else None

    async def write_record(self, record: tuple[str, bytes]) -> None:
        await self._db.execute("INSERT OR IGNORE INTO harness_key_check VALUES (1, ?, ?)", record)
        await self._db.commit()

    async def delete_record(self) -> None:
        await self._db.execute("DELETE FROM harness_key_check")
        await self._db.commit()

    async def one_encrypted_value(self) -> tuple[str, bytes] | None:
        for query in (
            "SELECT type, checkpoint FROM checkpoints WHERE type LIKE '%+%' ORDER BY rowid DESC LIMIT 1",
            "SELECT type, value FROM writes WHERE type LIKE '%+%' ORDER BY rowid DESC LIMIT 1",
        ):
            async with self._db.execute(query) as cursor:
                row = await cursor.fetchone()
            if row:
                return row[0], row[1]
        return None
