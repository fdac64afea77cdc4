"""The key check's record and probes on PostgreSQL: one record for the database, which holds the checkpoints,
the interactions and the run archive (``runs``, once the run stores have created it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.sealing import MAGIC
from agent.stores.key_check import RECORD_TYPE

if TYPE_CHECKING:
    import psycopg

__all__ = ("KEY_CHECK_MIGRATIONS", "PostgresKeyCheck")

KEY_CHECK_MIGRATIONS = [
    "CREATE TABLE harness_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), type TEXT NOT NULL, value BYTEA NOT NULL)",
]
_PLAIN = f"substring({{column}} from 1 for 2) <> decode('{MAGIC.hex()}', 'hex')"
_SEALED_BLOBS = {
    "interactions": ("interactions", "response", "TRUE"),
    "runs": ("runs", "record", "status <> 'erased'"),
    "session_threads": ("session_threads", "record", "TRUE"),
}
"""Tables of sealed blobs besides the checkpoints': a column of each, and which rows hold one."""


class PostgresKeyCheck:
    what = "checkpoints"

    def __init__(self, connection: psycopg.AsyncConnection[Any], where: str) -> None:
        """``connection``: one holding the migration lock, after the saver's and these migrations."""
        self._connection = connection
        self.where = where

    async def read_record(self) -> tuple[str, bytes] | None:
        row = await (await self._connection.execute("SELECT type, value FROM harness_key_check")).fetchone()
        return (row["type"], bytes(row["value"])) if row else None

    async def write_record(self, record: tuple[str, bytes]) -> None:
        await self._connection.execute(
            "INSERT INTO harness_key_check VALUES (1, %s, %s) "
            "ON CONFLICT (id) DO UPDATE SET type = excluded.type, value = excluded.value",
            record,
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
        for table, column, rows in await self._blob_tables():
            sealed = f"NOT ({_PLAIN.format(column=column)})"
            query = f"SELECT {column} AS value FROM {table} WHERE {rows} AND {sealed} LIMIT 1"
            found = await (await self._connection.execute(query)).fetchone()
            if found:
                return RECORD_TYPE, bytes(found["value"])
        return None

    async def one_plain_value(self) -> str | None:
        for table in ("checkpoint_blobs", "checkpoint_writes"):
            row = await (
                await self._connection.execute(
                    f"SELECT 1 FROM {table} WHERE type NOT LIKE '%+%' AND type <> 'empty' LIMIT 1"
                )
            ).fetchone()
            if row:
                return f"checkpoints ({table})"
        plain_interactions = f"{_PLAIN.format(column='message')} OR {_PLAIN.format(column='response')}"
        for table, column, rows in await self._blob_tables():
            plain = plain_interactions if table == "interactions" else _PLAIN.format(column=column)
            row = await (
                await self._connection.execute(f"SELECT 1 FROM {table} WHERE {rows} AND ({plain}) LIMIT 1")
            ).fetchone()
            if row:
                return {"interactions": "interactions", "runs": "run records (runs)"}.get(table, table)
        return None

    async def _blob_tables(self) -> list[tuple[str, str, str]]:
        """The tables of ``_SEALED_BLOBS`` that exist (the run archive's comes with the shared run stores)."""
        found = []
        for name, probe in _SEALED_BLOBS.items():
            row = await (await self._connection.execute("SELECT to_regclass(%s) AS found", (name,))).fetchone()
            if row and row["found"] is not None:
                found.append(probe)
        return found
