"""The interaction log on PostgreSQL, redacted and (with a key) sealed exactly as the embedded one; the people's
feedback on the runs beside it (``agent.interactions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from agent.interactions import decision_of, interaction_row, open_comment, open_message, sealed_comment
from contracts import RunFeedback

if TYPE_CHECKING:
    from collections.abc import Sequence

    from psycopg_pool import AsyncConnectionPool

    from agent.sealing import Sealer
    from contracts import ChatResponse

__all__ = ("PostgresInteractionLog",)


class PostgresInteractionLog:
    MIGRATIONS: ClassVar[list[str]] = [
        """CREATE TABLE interactions (
            interaction_id TEXT PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL,
            at TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, response BYTEA NOT NULL
        )""",
    ]
    INDEX_MIGRATIONS: ClassVar[list[str]] = [
        "CREATE INDEX interactions_by_session ON interactions (session_id)",
        "CREATE INDEX interactions_by_age ON interactions (at)",
        "ALTER TABLE interactions ALTER COLUMN message TYPE BYTEA USING convert_to(message, 'UTF8')",
    ]
    """Applied after the key check's migrations, which came first: the indexes of retention and erasure, then the
    message as bytes (UTF-8 text, or sealed with a key)."""
    FEEDBACK_MIGRATIONS: ClassVar[list[str]] = [
        """CREATE TABLE feedback (
            run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, at TEXT NOT NULL, score SMALLINT NOT NULL, comment BYTEA
        )""",
        "CREATE INDEX feedback_by_session ON feedback (session_id)",
        "CREATE INDEX feedback_by_age ON feedback (at)",
    ]
    """Applied after every migration before them (ADR 45)."""

    def __init__(self, pool: AsyncConnectionPool[Any], sealer: Sealer | None = None) -> None:
        self._pool = pool
        self._sealer = sealer

    async def record(self, interaction_id: str, message: str, response: ChatResponse, at: str) -> str:
        *columns, stored_message, stored_response = interaction_row(self._sealer, interaction_id, message, response, at)
        if isinstance(stored_message, str):
            stored_message = stored_message.encode()
        async with self._pool.connection() as connection:
            await connection.execute(
                "INSERT INTO interactions VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (run_id) DO NOTHING",
                (*columns, stored_message, stored_response),
            )
            row = await (
                await connection.execute(
                    "SELECT interaction_id FROM interactions WHERE run_id = %s", (response.run_id,)
                )
            ).fetchone()
        assert row is not None, "the row was just written"
        stored: str = row["interaction_id"]
        return stored

    async def record_feedback(self, feedback: RunFeedback) -> None:
        comment = sealed_comment(self._sealer, feedback.run_id, feedback.comment)
        async with self._pool.connection() as connection:
            await connection.execute(
                "INSERT INTO feedback VALUES (%s, %s, %s, %s, %s) ON CONFLICT (run_id) DO UPDATE SET "
                "session_id = EXCLUDED.session_id, at = EXCLUDED.at, score = EXCLUDED.score, "
                "comment = EXCLUDED.comment",
                (feedback.run_id, feedback.session_id, feedback.at, feedback.score, comment),
            )

    async def feedback(self) -> list[RunFeedback]:
        async with self._pool.connection() as connection:
            rows = await (
                await connection.execute(
                    "SELECT run_id, session_id, at, score, comment FROM feedback ORDER BY at, run_id"
                )
            ).fetchall()
        return [
            RunFeedback(
                run_id=row["run_id"],
                session_id=row["session_id"],
                at=row["at"],
                score=row["score"],
                comment=open_comment(self._sealer, row["run_id"], row["comment"]),
            )
            for row in rows
        ]

    async def decisions(self) -> list[tuple[str, Literal["approve", "reject"]]]:
        async with self._pool.connection() as connection:
            rows = await (
                await connection.execute(
                    "SELECT run_id, status, response FROM interactions WHERE status IN ('completed', 'rejected') "
                    "ORDER BY at, run_id"
                )
            ).fetchall()
        return [
            (row["run_id"], decision)
            for row in rows
            if (decision := decision_of(self._sealer, row["run_id"], row["status"], row["response"])) is not None
        ]

    async def erase(self, *, run_ids: Sequence[str] = (), session_ids: Sequence[str] = ()) -> int:
        async with self._pool.connection() as connection, connection.transaction():
            await connection.execute(
                "DELETE FROM feedback WHERE run_id = ANY(%s) OR session_id = ANY(%s)",
                (list(run_ids), list(session_ids)),
            )
            cursor = await connection.execute(
                "DELETE FROM interactions WHERE run_id = ANY(%s) OR session_id = ANY(%s)",
                (list(run_ids), list(session_ids)),
            )
            removed: int = max(cursor.rowcount, 0)
            return removed

    async def purge(self, before: str, limit: int) -> int:
        removed = 0
        async with self._pool.connection() as connection:
            for table, key in (("interactions", "interaction_id"), ("feedback", "run_id")):
                cursor = await connection.execute(
                    f"DELETE FROM {table} WHERE {key} IN "
                    f"(SELECT {key} FROM {table} WHERE at < %s ORDER BY at LIMIT %s)",
                    (before, limit),
                )
                removed += max(cursor.rowcount, 0)
        return removed

    async def compact(self) -> None:
        return None  # PostgreSQL reclaims removed rows itself (autovacuum)

    async def messages(self) -> list[tuple[str, str]]:
        async with self._pool.connection() as connection:
            rows = await (await connection.execute("SELECT run_id, message FROM interactions ORDER BY at")).fetchall()
        return [(row["run_id"], open_message(self._sealer, row["run_id"], row["message"])) for row in rows]
