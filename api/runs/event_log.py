"""The interface of a run event log. The embedded backend is SQLite (``SqliteEventLog``); a shared one
(Redis Streams) fits behind the same methods without touching the routes.

Appends are queued and return at once; the log commits them in batches, in order, and only then
calls ``on_commit`` so the registry can publish them: persisted before published.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.runs.records import RunRecord, StoredEvent

__all__ = ("EventLog",)


class EventLog(Protocol):
    async def open(self, on_commit: Callable[[str, int], None]) -> None:
        """Start the log; ``on_commit(run_id, seq)`` is called once the run's events up to ``seq`` are durable."""
        ...

    async def close(self) -> None:
        """Commit what is queued, then release the store."""
        ...

    def append(self, run_id: str, event: StoredEvent) -> None:
        """Queue an event of a run (seqs rise by one)."""
        ...

    def save_run(self, record: RunRecord) -> None:
        """Queue the run's record; it is written in order with the events queued before it."""
        ...

    async def flush(self) -> None:
        """Wait until everything queued so far is committed."""
        ...

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        """The kept events with ``seq > after``, and the highest trimmed seq (see ``trim_point``)."""
        ...

    async def load_run(self, run_id: str) -> RunRecord | None: ...

    async def unfinished_runs(self) -> list[RunRecord]:
        """Runs recorded as ``running`` or ``waiting``."""
        ...
