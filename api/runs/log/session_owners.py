"""Who owns each session, on the shared stores: PostgreSQL decides, Redis only remembers.

A session belongs to the subject whose turn first named it, and the ``session_owners`` table is the one place
that says so: claiming is one statement (an insert that, on conflict, returns the row already there), so of
two instances claiming one new id at once exactly one wins. Redis keeps a copy per session for the ``BEGIN``
script (``P:session:<id>:owner``); a copy missing there, because Redis lost its keys or evicted them, is
filled again from this table, never decided anew.

A session being erased carries a tombstone here too (``erasing``: who holds it), beside its Redis copy
``P:session:<id>:erasing``: a turn that finds either is refused, so nothing of the session is written back
while it goes. Both go with the session's row; the id may then start a new session.

A session the service has just made (a random id nobody else knows yet) is claimed here after its first run
began, off the first token's path (``claim_new``), guarded by the run's archive tombstone so that a claim
arriving after the session's erasure cannot bring it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Sequence

    from psycopg import AsyncConnection
    from psycopg_pool import AsyncConnectionPool

__all__ = ("SessionOwners",)

_BACKFILL = ("session-owners-backfill", 0)
"""The ``harness_migrations`` row that says the owners kept before this table have been copied into it."""


class SessionOwners:
    MIGRATIONS: ClassVar[list[str]] = [
        "CREATE TABLE session_owners (session_id TEXT PRIMARY KEY, owner TEXT, erasing TEXT)",
        "CREATE TABLE session_threads (thread_id TEXT PRIMARY KEY "
        "REFERENCES session_owners (session_id) ON DELETE CASCADE, record BYTEA NOT NULL)",
    ]
    """``owner`` is NULL for a session begun with identity off. A session made as an Agent Protocol thread has
    its thread's record (``api.runs.log.threads``) in ``session_threads``; it goes with the session."""

    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self._pool = pool

    async def claim(self, session_id: str, owner: str | None) -> tuple[str | None, bool]:
        """Make the session ``owner``'s unless it has an owner already; its owner, and whether it is being erased."""
        found_owner, erasing, _ = await self.claim_new_id(session_id, owner)
        return found_owner, erasing

    async def claim_new_id(self, session_id: str, owner: str | None) -> tuple[str | None, bool, bool]:
        """``claim``, and whether this claim made the session (no one had it before)."""
        async with self._pool.connection() as connection:
            found = await connection.execute(
                "INSERT INTO session_owners (session_id, owner) VALUES (%s, %s) "
                "ON CONFLICT (session_id) DO UPDATE SET session_id = excluded.session_id "
                "RETURNING owner, erasing IS NOT NULL AS erasing, xmax = 0 AS made",
                (session_id, owner),
            )
            row = await found.fetchone()
        assert row is not None, "an upsert returns its row"
        return row["owner"], row["erasing"], row["made"]

    async def claim_new(self, claims: Sequence[tuple[str, str | None, str]]) -> None:
        """Record the owners of sessions the service made, as ``(session_id, owner, run_id)`` of their first run,
        unless that run has been erased meanwhile (its tombstone in ``runs``)."""
        if not claims:
            return
        async with self._pool.connection() as connection, connection.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO session_owners (session_id, owner) SELECT %s, %s "
                "WHERE NOT EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND status = 'erased') "
                "ON CONFLICT (session_id) DO NOTHING",
                list(claims),
            )

    async def owner(self, session_id: str) -> tuple[bool, str | None]:
        """Whether the table knows the session, and its owner."""
        async with self._pool.connection() as connection:
            found = await connection.execute("SELECT owner FROM session_owners WHERE session_id = %s", (session_id,))
            row = await found.fetchone()
        return (False, None) if row is None else (True, row["owner"])

    async def save_thread(self, thread_id: str, record: bytes) -> None:
        await self._execute(
            "INSERT INTO session_threads (thread_id, record) VALUES (%s, %s) "
            "ON CONFLICT (thread_id) DO UPDATE SET record = excluded.record",
            thread_id,
            record,
        )

    async def thread(self, thread_id: str) -> bytes | None:
        async with self._pool.connection() as connection:
            found = await connection.execute("SELECT record FROM session_threads WHERE thread_id = %s", (thread_id,))
            row = await found.fetchone()
        return None if row is None else bytes(row["record"])

    async def threads(self) -> list[tuple[str, str | None, bytes]]:
        """Every thread, as ``(thread_id, owner, record)``."""
        async with self._pool.connection() as connection:
            found = await connection.execute(
                "SELECT thread_id, owner, record FROM session_threads "
                "JOIN session_owners ON session_owners.session_id = session_threads.thread_id"
            )
            rows = await found.fetchall()
        return [(row["thread_id"], row["owner"], bytes(row["record"])) for row in rows]

    async def hold(self, session_ids: Sequence[str], holder: str) -> None:
        await self._execute(
            "UPDATE session_owners SET erasing = %s WHERE session_id = ANY(%s) AND erasing IS NULL",
            holder,
            list(session_ids),
        )

    async def release(self, session_ids: Sequence[str], holder: str) -> None:
        await self._execute(
            "UPDATE session_owners SET erasing = NULL WHERE session_id = ANY(%s) AND erasing = %s",
            list(session_ids),
            holder,
        )

    async def forget(self, session_ids: Sequence[str]) -> None:
        await self._execute("DELETE FROM session_owners WHERE session_id = ANY(%s)", list(session_ids))

    @staticmethod
    async def backfilled(connection: AsyncConnection[Any]) -> bool:
        """Whether the owners recorded before this table (Redis's owner keys, the archived runs) are in it."""
        found = await connection.execute(
            "SELECT 1 FROM harness_migrations WHERE component = %s AND version = %s", _BACKFILL
        )
        return await found.fetchone() is not None

    @staticmethod
    async def backfill(connection: AsyncConnection[Any], owners: dict[str, str | None]) -> None:
        """Copy ``owners`` (session: owner) into the table, once per database, under the migration lock that
        ``connection`` holds; an owner recorded already stays."""
        async with connection.transaction(), connection.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO session_owners (session_id, owner) VALUES (%s, %s) ON CONFLICT (session_id) DO NOTHING",
                list(owners.items()),
            )
            await cursor.execute("INSERT INTO harness_migrations (component, version) VALUES (%s, %s)", _BACKFILL)

    async def _execute(self, sql: str, *args: object) -> None:
        async with self._pool.connection() as connection:
            await connection.execute(sql, args)
