"""The interaction log: every finished turn, redacted. No system prompt, no keys, no card numbers.

``InteractionLog`` is what the executor sees; ``SqliteInteractionLog`` is the embedded store (the
PostgreSQL one lives in ``agent.stores.pg_interactions``). Both redact with ``redacted_turn`` before writing
and, with a key, seal the message and the response with ``sealed_turn``, each bound to its run.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import TYPE_CHECKING, Protocol

import msgspec

from agent.guardrails import redact
from agent.sealing import place
from agent.stores.scrubbing import scrub
from agent.stores.sqlite_key_check import SqliteFileKeyCheck

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from agent.sealing import Sealer
    from contracts import ChatResponse

__all__ = (
    "SEALED_COLUMNS",
    "InteractionLog",
    "SqliteInteractionLog",
    "open_message",
    "redacted_turn",
    "sealed_turn",
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
"""


class InteractionLog(Protocol):
    async def record(self, interaction_id: str, message: str, response: ChatResponse, at: str) -> str:
        """Store the turn once (a retried write keeps the first id) and return its interaction id."""
        ...

    async def messages(self) -> list[tuple[str, str]]:
        """``(run_id, message)`` of every stored turn, oldest first."""
        ...

    async def erase(self, *, run_ids: Sequence[str] = (), session_ids: Sequence[str] = ()) -> int:
        """Remove the turns of these runs and of these sessions; how many were removed."""
        ...

    async def purge(self, before: str, limit: int) -> int:
        """Remove up to ``limit`` of the turns stored before ``before`` (RFC 3339), oldest first; how many."""
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

    async def erase(self, *, run_ids: Sequence[str] = (), session_ids: Sequence[str] = ()) -> int:
        return await asyncio.to_thread(self._erase, list(run_ids), list(session_ids))

    async def purge(self, before: str, limit: int) -> int:
        return await asyncio.to_thread(
            self._execute,
            "DELETE FROM interactions WHERE rowid IN (SELECT rowid FROM interactions WHERE at < ? ORDER BY at LIMIT ?)",
            (before, limit),
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
        return removed

    def _execute(self, sql: str, args: tuple[object, ...]) -> int:
        with self._lock:
            cursor = self._db.execute(sql, args)
            cursor.fetchall()
            return max(cursor.rowcount, 0)

    def _record(self, interaction_id: str, message: str, response: ChatResponse, at: str) -> str:
        stored_message, stored_response = sealed_turn(self._sealer, message, response)
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO interactions VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    interaction_id,
                    response.run_id,
                    response.session_id,
                    at,
                    response.status,
                    stored_message,
                    stored_response,
                ),
            )
            row = self._db.execute("SELECT interaction_id FROM interactions WHERE run_id = ?", (response.run_id,))
            stored: str = row.fetchone()[0]
        return stored

    def _messages(self) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute("SELECT run_id, message FROM interactions ORDER BY at, rowid").fetchall()
        return [(run_id, open_message(self._sealer, run_id, message)) for run_id, message in rows]
