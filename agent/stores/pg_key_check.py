"""The key check's record and probe next to the checkpoints on PostgreSQL."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ("KEY_CHECK_MIGRATIONS", "PostgresKeyCheck")

KEY_CHECK_MIGRATIONS = [
    "CREATE TABLE harness_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), type TEXT NOT NULL, value BYTEA NOT NULL)",
]


class PostgresKeyCheck:
    def __init__(self, connection: psycopg.AsyncConnection[Any], where: str) -> None:
        """``connection``: one holding the migration lock, after the saver's and these migrations."""
        self._connection = connection
        self.where = where

    async def read_record(self) -> tuple[str, bytes] | None:
        row = await (await self._connection.execute("SELECT type, value FROM harness_key_check")).fetchone()
        return (row["type"], bytes(row["value"])) if row else None

    async def write_record(self, record: tuple[str, bytes]) -> None:
        await self._connection.execute(
            "INSERT INTO harness_key_check VALUES (1, %s, %s) ON CONFLICT (id) DO NOTHING", record
        )

    async def delete_record(self) -> None:
        await self._connection.execute("DELETE FROM harness_key_check")

    async def one_encrypted_value(self) -> tuple[str, bytes] | None:
        for query in (
            "SELECT type, blob FROM checkpoint_blobs WHERE type LIKE '%+%' LIMIT 1",
            "SELECT type, blob FROM checkpoint_writes WHERE type LIKE '%+%' LIMIT 1",
        ):
            row = await (await self._connection.execute(query)).fetchone()
            if row:
                return row["type"], bytes(row["blob"])
        return None
