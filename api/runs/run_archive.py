"""The runs' records in PostgreSQL: the durable copy of what Redis holds while runs are live.

Redis is the authority for a live run (its record changes atomically with its events there); every record
it commits is copied here right after, so runs outlive Redis's memory and can be listed and queried.
A copy never goes back in time: a record with a lower ``last_seq`` than the stored one is ignored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from api.runs.records import decode_record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from psycopg_pool import AsyncConnectionPool

    from api.runs.records import EncodedRecord, RunRecord

__all__ = ("RunArchive",)


class RunArchive:
    MIGRATIONS: ClassVar[list[str]] = [
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL, last_seq BIGINT NOT NULL,
            record BYTEA NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )""",
        "CREATE INDEX runs_by_session ON runs (session_id)",
        "CREATE INDEX runs_by_status ON runs (status)",
    ]

    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self._pool = pool

    async def save(self, records: Sequence[EncodedRecord]) -> None:
        async with self._pool.connection() as connection, connection.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO runs (run_id, session_id, status, last_seq, record) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, last_seq = excluded.last_seq, "
                "record = excluded.record, updated_at = now() WHERE runs.last_seq <= excluded.last_seq",
                [(r.run_id, r.session_id, r.status, r.last_seq, r.data) for r in records],
            )

    async def load(self, run_id: str) -> RunRecord | None:
        async with self._pool.connection() as connection:
            found = await connection.execute("SELECT record FROM runs WHERE run_id = %s", (run_id,))
            row = await found.fetchone()
        return decode_record(bytes(row["record"])) if row else None
