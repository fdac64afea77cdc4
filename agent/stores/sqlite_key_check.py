"""The key check's record and probes in the embedded SQLite files: the checkpoints (``checkpoints.sqlite``,
through the saver's connection) and any other file of sealed blobs (``SqliteFileKeyCheck``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.sealing import MAGIC
from agent.stores.key_check import RECORD_TYPE

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    import aiosqlite

__all__ = ("SqliteFileKeyCheck", "SqliteKeyCheck")

_SCHEMA = "CREATE TABLE IF NOT EXISTS harness_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), type TEXT, value BLOB)"
_WRITE = "INSERT OR REPLACE INTO harness_key_check VALUES (1, ?, ?)"
_MAGIC_SQL = f"X'{MAGIC.hex()}'"


class SqliteKeyCheck:
    what = "checkpoints"

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
        await self._db.execute(_WRITE, record)
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

    async def one_plain_value(self) -> str | None:
        for table in ("checkpoints", "writes"):
            async with self._db.execute(f"SELECT 1 FROM {table} WHERE type NOT LIKE '%+%' LIMIT 1") as cursor:
                if await cursor.fetchone():
                    return f"checkpoints ({table})"
        return None


class SqliteFileKeyCheck:
    """A SQLite file whose ``columns`` (``(what they hold, table, column)``) hold sealed blobs (``sealing.MAGIC``
    first; a plain value is text or another blob). Runs on the calling thread: at start, before the connection
    is shared."""

    def __init__(
        self, connection: sqlite3.Connection, where: str, what: str, columns: Sequence[tuple[str, str, str]]
    ) -> None:
        self._db = connection
        self.where = where
        self.what = what
        self._columns = columns

    async def read_record(self) -> tuple[str, bytes] | None:
        self._db.execute(_SCHEMA)
        row = self._db.execute("SELECT type, value FROM harness_key_check").fetchone()
        return (row[0], row[1]) if row else None

    async def write_record(self, record: tuple[str, bytes]) -> None:
        self._db.execute(_WRITE, record)

    async def delete_record(self) -> None:
        self._db.execute("DELETE FROM harness_key_check")

    async def one_encrypted_value(self) -> tuple[str, bytes] | None:
        for _, table, column in self._columns:
            row = self._db.execute(
                f"SELECT {column} FROM {table} WHERE substr({column}, 1, 2) = {_MAGIC_SQL} LIMIT 1"
            ).fetchone()
            if row:
                return RECORD_TYPE, row[0]
        return None

    async def one_plain_value(self) -> str | None:
        for label, table, column in self._columns:
            row = self._db.execute(
                f"SELECT 1 FROM {table} WHERE substr({column}, 1, 2) IS NOT {_MAGIC_SQL} LIMIT 1"
            ).fetchone()
            if row:
                return f"{label} ({table}.{column})"
        return None
