"""The interaction log: every finished turn, redacted. No system prompt, no keys, no card numbers.

Beside the turns it keeps the people's feedback on them (``POST /runs/{run_id}/feedback``): one row a run, the
latest replacing any before it, its comment redacted (and sealed with a key) as a message is. Feedback goes with its
run, its session and the retention purge exactly as the turns do (ADR 45).

``InteractionLog`` is what the executor sees; ``SqliteInteractionLog`` is the embedded store (the
PostgreSQL one lives in ``agent.stores.pg_interactions``). Both redact with ``redacted_turn`` before writing
and, with a key, seal the message and the response with ``sealed_turn``, each bound to its run.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import TYPE_CHECKING, Literal, Protocol

import msgspec

from agent.guardrails import redact
from agent.sealing import place
from agent.stores.scrubbing import scrub
from agent.stores.sqlite_key_check import SqliteFileKeyCheck
from contracts import ChatResponse, RunFeedback

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from agent.sealing import Sealer

__all__ = (
    "SEALED_COLUMNS",
    "InteractionLog",
    "SqliteInteractionLog",
    "decision_of",
    "interaction_row",
    "open_comment",
    "open_message",
    "redacted_turn",
    "sealed_comment",
    "sealed_turn",
    "where_comment",
    "where_sealed",
)

SEALED_COLUMNS = ("message", "response")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS interactions (
    interaction_id TEXT PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL, at TEXT NOT NULL,
    status TEXT NOT NULL, message TEXT NOT NULL, response BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS interactions_by_session ON interactions (session_id);
CREATE INDEX IF NOT EXISTS interactions_by_age ON interactions (at);
CREATE TABLE IF NOT EXISTS feedback (
    run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, at TEXT NOT NULL, score INTEGER NOT NULL, comment BLOB
);
CREATE INDEX IF NOT EXISTS feedback_by_session ON feedback (session_id);
CREATE INDEX IF NOT EXISTS feedback_by_age ON feedback (at);
"""


class InteractionLog(Protocol):
    async def record(self, interaction_id: str, message: str, response: ChatResponse, at: str) -> str:
        """Store the turn once (a retried write keeps the first id) and return its interaction id."""
        ...

    async def messages(self) -> list[tuple[str, str]]:
        """``(run_id, message)`` of every stored turn, oldest first."""
        ...

    async def record_feedback(self, feedback: RunFeedback) -> None:
        """Keep ``feedback`` (its comment redacted), replacing the run's feedback before it."""
        ...

    async def feedback(self) -> list[RunFeedback]:
        """The feedback kept, oldest first, comments opened."""
        ...

    async def decisions(self) -> list[tuple[str, Literal["approve", "reject"]]]:
        """``(run_id, decision)`` of every stored turn a person approved or rejected, oldest first."""
        ...

    async def erase(self, *, run_ids: Sequence[str] = (), session_ids: Sequence[str] = ()) -> int:
        """Remove the turns and the feedback of these runs and of these sessions; how many turns were removed."""
        ...

    async def purge(self, before: str, limit: int) -> int:
        """Remove up to ``limit`` of the turns and up to ``limit`` of the feedback stored before ``before``
        (RFC 3339), oldest first; how many rows in all."""
        ...

    async def compact(self) -> None:
        """Leave nothing removed in the store's files (SQLite's write-ahead log)."""
        ...


def redacted_turn(message: str, response: ChatResponse) -> tuple[str, bytes]:
    """The message and the encoded response as they may be stored: secrets and personal numbers removed."""
    answer = msgspec.structs.replace(response.answer, text=redact(response.answer.text))
    return redact(message), msgspec.json.encode(msgspec.structs.replace(response, answer=answer))


def where_sealed(column: str, run_id: str) -> bytes:
    """The associated data of an interaction's sealed ``column``: the column and the run."""
    return place(f"interactions.{column}", run_id)


def sealed_turn(sealer: Sealer | None, message: str, response: ChatResponse) -> tuple[str | bytes, bytes]:
    """``redacted_turn``, sealed when there is a key: the message is then bytes, not text."""
    stored_message, stored_response = redacted_turn(message, response)
    if sealer is None:
        return stored_message, stored_response
    run_id = response.run_id
    return (
        sealer.seal(stored_message.encode(), where_sealed("message", run_id)),
        sealer.seal(stored_response, where_sealed("response", run_id)),
    )


def interaction_row(
    sealer: Sealer | None, interaction_id: str, message: str, response: ChatResponse, at: str
) -> tuple[str, str, str, str, str, str | bytes, bytes]:
    """An interaction's columns in the table's order, the turn as ``sealed_turn`` stores it."""
    stored_message, stored_response = sealed_turn(sealer, message, response)
    return (
        interaction_id,
        response.run_id,
        response.session_id,
        at,
        response.status,
        stored_message,
        stored_response,
    )


def decision_of(sealer: Sealer | None, run_id: str, status: str, stored: bytes) -> Literal["approve", "reject"] | None:
    """What a person decided on the action of a stored turn: ``reject`` for a rejected turn, ``approve`` for one
    whose action was executed; None for a turn nobody decided."""
    if status == "rejected":
        return "reject"
    if status != "completed":
        return None
    raw = bytes(stored) if sealer is None else sealer.unseal(bytes(stored), where_sealed("response", run_id))
    response = msgspec.json.decode(raw, type=ChatResponse)
    return "approve" if any(entry.node == "execute_action" for entry in response.trace) else None


def where_comment(run_id: str) -> bytes:
    """The associated data of a sealed feedback comment: the column and the run."""
    return place("feedback.comment", run_id)


def sealed_comment(sealer: Sealer | None, run_id: str, comment: str | None) -> bytes | None:
    """A feedback comment as it may be stored: redacted, then sealed to its run when there is a key."""
    if comment is None:
        return None
    stored = redact(comment).encode()
    return stored if sealer is None else sealer.seal(stored, where_comment(run_id))


def open_comment(sealer: Sealer | None, run_id: str, stored: bytes | None) -> str | None:
    if stored is None:
        return None
    return (stored if sealer is None else sealer.unseal(bytes(stored), where_comment(run_id))).decode()


def open_message(sealer: Sealer | None, run_id: str, stored: str | bytes) -> str:
    """A stored message as text: opened with a key (a plain one refused), as it is without."""
    if sealer is not None:
        as_bytes = stored.encode() if isinstance(stored, str) else stored
        return sealer.unseal(as_bytes, where_sealed("message", run_id)).decode()
    return stored if isinstance(stored, str) else stored.decode()


class SqliteInteractionLog:
    def __init__(self, path: Path, sealer: Sealer | None = None) -> None:
        self._path = path
        self._sealer = sealer
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA secure_delete=ON")  # removed turns are overwritten, not left in free pages
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def key_check(self) -> SqliteFileKeyCheck:
        """The file's key check (``agent.stores.key_check``), run as the stores open."""
        return SqliteFileKeyCheck(
            self._db, str(self._path), "interactions", [("interactions", "interactions", c) for c in SEALED_COLUMNS]
        )

    async def record(self, interaction_id: str, message: str, response: ChatResponse, at: str) -> str:
        return await asyncio.to_thread(self._record, interaction_id, message, response, at)

    async def messages(self) -> list[tuple[str, str]]:
        return await asyncio.to_thread(self._messages)

    async def record_feedback(self, feedback: RunFeedback) -> None:
        comment = sealed_comment(self._sealer, feedback.run_id, feedback.comment)
        await asyncio.to_thread(
            self._execute,
            "INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?, ?)",
            (feedback.run_id, feedback.session_id, feedback.at, feedback.score, comment),
        )

    async def feedback(self) -> list[RunFeedback]:
        return await asyncio.to_thread(self._feedback)

    async def decisions(self) -> list[tuple[str, Literal["approve", "reject"]]]:
        return await asyncio.to_thread(self._decisions)

    def _decisions(self) -> list[tuple[str, Literal["approve", "reject"]]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT run_id, status, response FROM interactions WHERE status IN ('completed', 'rejected') "
                "ORDER BY at, rowid"
            ).fetchall()
        return [
            (run_id, decision)
            for run_id, status, response in rows
            if (decision := decision_of(self._sealer, run_id, status, response)) is not None
        ]

    async def erase(self, *, run_ids: Sequence[str] = (), session_ids: Sequence[str] = ()) -> int:
        return await asyncio.to_thread(self._erase, list(run_ids), list(session_ids))

    async def purge(self, before: str, limit: int) -> int:
        return sum(
            [
                await asyncio.to_thread(
                    self._execute,
                    f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE at < ? ORDER BY at LIMIT ?)",
                    (before, limit),
                )
                for table in ("interactions", "feedback")
            ]
        )

    async def compact(self) -> None:
        await asyncio.to_thread(self._scrub)

    def _scrub(self) -> None:
        with self._lock:
            scrub(self._db)

    def _erase(self, run_ids: list[str], session_ids: list[str]) -> int:
        removed = 0
        for column, ids in (("run_id", run_ids), ("session_id", session_ids)):
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                removed += self._execute(f"DELETE FROM interactions WHERE {column} IN ({marks})", tuple(chunk))
                self._execute(f"DELETE FROM feedback WHERE {column} IN ({marks})", tuple(chunk))
        return removed

    def _execute(self, sql: str, args: tuple[object, ...]) -> int:
        with self._lock:
            cursor = self._db.execute(sql, args)
            cursor.fetchall()
            return max(cursor.rowcount, 0)

    def _record(self, interaction_id: str, message: str, response: ChatResponse, at: str) -> str:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO interactions VALUES (?, ?, ?, ?, ?, ?, ?)",
                interaction_row(self._sealer, interaction_id, message, response, at),
            )
            row = self._db.execute("SELECT interaction_id FROM interactions WHERE run_id = ?", (response.run_id,))
            stored: str = row.fetchone()[0]
        return stored

    def _feedback(self) -> list[RunFeedback]:
        with self._lock:
            rows = self._db.execute(
                "SELECT run_id, session_id, at, score, comment FROM feedback ORDER BY at, rowid"
            ).fetchall()
        return [
            RunFeedback(
                run_id=run_id,
                session_id=session_id,
                at=at,
                score=score,
                comment=open_comment(self._sealer, run_id, comment),
            )
            for run_id, session_id, at, score, comment in rows
        ]

    def _messages(self) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute("SELECT run_id, message FROM interactions ORDER BY at, rowid").fetchall()
        return [(run_id, open_message(self._sealer, run_id, message)) for run_id, message in rows]
