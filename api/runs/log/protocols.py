"""The event log's interfaces, one per concern, and ``EventLog``, what a backend implements: all four.

The embedded backend is SQLite (``SqliteEventLog``), for one process; the shared one is Redis Streams with a
PostgreSQL archive (``RedisEventLog``), for any number of instances. Collaborators are given the narrowest of
these they need: a stream reads through ``EventStore``, the erasure forgets through ``Forgetting``.

- ``EventStore``: appends are queued and return at once; the log commits them in batches, in order, and only
  then calls ``on_commit`` so the registry can publish them: persisted before published.
- ``RunStore``: the runs' records, and who may write a run. Writing a run is a privilege: ``begin_run`` takes
  it for a new run (and its session), ``claim_run`` for an existing one that nobody executes (to resume,
  cancel or end it), ``start_queued`` for a queued one it starts. A record whose status is not ``running``
  gives it back, as does ``release_run``. A
  shared log refuses the appends of an instance that lost the privilege (its lease ran out and another
  instance took the run over) and reports them to ``on_fenced``, so seqs stay unique and contiguous whoever
  writes.
- ``SessionStore``: who owns a session, and the tombstones that hold a session while it is erased.
- ``ThreadStore``: the Agent Protocol's threads (sessions with a graph, metadata and times).
- ``Forgetting``: retention and erasure (``api.runs.erasure``) remove finished runs only: the caller ends a
  run before it erases it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from api.runs.log.ownership import SessionAccess
    from api.runs.log.records import RunRecord, StoredEvent
    from api.runs.log.threads import ThreadRecord

__all__ = ("EventLog", "EventStore", "Forgetting", "RunStore", "SessionStore", "ThreadStore")


class EventStore(Protocol):
    """The runs' events: appended in order, committed in batches, read back after a cursor."""

    async def open(self, on_commit: Callable[[str, int], None], on_fenced: Callable[[str], None]) -> None:
        """Start the log; ``on_commit(run_id, seq)`` is called once the run's events up to ``seq`` are durable."""
        ...

    async def close(self) -> None:
        """Commit what is queued, then release the store."""
        ...

    def append(self, run_id: str, event: StoredEvent, record: RunRecord | None = None) -> None:
        """Queue an event of a run (seqs rise by one); with ``record``, the run's record as the event leaves
        it, committed together with the event."""
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

    async def check(self) -> None:
        """Raise unless the store answers now."""
        ...


class RunStore(Protocol):
    """The runs' records, and the right to write a run."""

    async def load_run(self, run_id: str) -> RunRecord | None:
        """The run's record, its ``last_seq`` the last committed event's."""
        ...

    async def begin_run(self, record: RunRecord, access: SessionAccess, *, new_session: bool = False) -> str | None:
        """Record a new run and take the right to write it; when its session has an unfinished run, or a run queued
        (``pending``), change nothing and return that run's id. A session ``access`` may not continue raises
        ``SessionNotFound``, and so does one being erased unless ``access`` may continue it: then ``SessionBusy``. A
        session nobody has used becomes ``access.owner``'s, decided atomically in the store that owns sessions, so
        of two callers naming it at once exactly one gets it. ``new_session``: the service has just made the
        session's id, so no store knows it yet."""
        ...

    async def active_run(self, session_id: str) -> str | None:
        """The session's unfinished (running or waiting) run, if it has one."""
        ...

    async def enqueue_run(self, record: RunRecord) -> None:
        """Record a ``pending`` run (its input in its record) at the end of its session's queue: a session the
        caller's ``begin_run`` found busy, so one it may continue. ``SessionBusy`` while it is being erased."""
        ...

    async def start_queued(self, session_id: str) -> RunRecord | None:
        """When the session has no unfinished run, take the first of its queued runs still ``pending``, in one
        step: it becomes the session's running run, with the right to write it, as ``begin_run``'s does. Its
        record (as it was queued: the caller records it running); None when the session is busy or being
        erased, has nothing queued, or its first queued run is being cancelled."""
        ...

    async def queued_sessions(self) -> list[str]:
        """The sessions that have runs queued (some may have ended meanwhile)."""
        ...

    async def queued_runs(self, session_id: str) -> list[str]:
        """The session's queued runs, oldest first (some may have ended meanwhile)."""
        ...

    async def waiting_runs(self) -> list[RunRecord]:
        """Every run paused for a human, oldest first."""
        ...

    async def claim_run(self, run_id: str) -> RunRecord | None:
        """Take the right to write a run nobody executes; its record, or None when someone holds it."""
        ...

    async def release_run(self, run_id: str) -> None:
        """Give back a claimed run unchanged."""
        ...

    async def renew(self, run_ids: Iterable[str]) -> set[str]:
        """Extend this instance's hold on ``run_ids``; the ones it lost."""
        ...

    async def lost_runs(self) -> list[str]:
        """Runs recorded as running that no live instance holds (their executor died)."""
        ...


class SessionStore(Protocol):
    """Who owns a session, and the marks that hold one while it is erased."""

    async def session_owner(self, session_id: str) -> tuple[bool, str | None]:
        """Whether the log knows the session, and its owner (None for a session begun with identity off)."""
        ...

    async def hold_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        """Mark ``session_ids`` as being erased by ``holder``: a tombstone in the store, which every instance
        checks as it begins a run, so no turn starts in them anywhere until ``release_sessions`` or
        ``forget_sessions``. A session marked already keeps its mark."""
        ...

    async def release_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        """Remove the marks ``holder`` set that are still there (the erasure stopped before forgetting)."""
        ...


class ThreadStore(Protocol):
    """What the Agent Protocol's threads keep beyond their session: graph, metadata, times."""

    async def create_thread(self, thread: ThreadRecord, access: SessionAccess) -> tuple[ThreadRecord, bool]:
        """Make ``thread`` (a session) ``access``'s, unless it exists: the thread as stored, and whether it is new.
        A session of someone else's is ``SessionNotFound``; one being erased ``SessionBusy``."""
        ...

    async def save_thread(self, thread: ThreadRecord) -> None:
        """Write the record of a thread the caller may use (its graph, metadata, last use)."""
        ...

    async def load_thread(self, thread_id: str) -> ThreadRecord | None:
        """The thread's record; None for a session that has none (a ``/chat`` session) or no session."""
        ...

    async def search_threads(self, access: SessionAccess) -> list[ThreadRecord]:
        """Every thread record ``access`` may continue."""
        ...


class Forgetting(Protocol):
    """What retention and erasure remove: finished runs, and sessions left without runs."""

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]:
        """The ids of the runs of each of ``session_ids``; sessions without any are left out."""
        ...

    async def account_sessions(self, account_id: str) -> list[str]:
        """The sessions that have a run begun by a subject of the account ``account_id``."""
        ...

    async def expired_runs(self, before: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` finished runs whose status last changed before ``before`` (RFC 3339), oldest
        first, as ``(run_id, session_id)``."""
        ...

    async def finished_runs(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` finished runs whose status last changed before ``before`` and after ``after`` (a
        ``(changed_at, run_id)`` position), in that order, as ``(changed_at, run_id)``: what online evaluation
        reads past its cursor."""
        ...

    async def idle_sessions(self, before: str, limit: int) -> list[str]:
        """Up to ``limit`` sessions whose runs have all finished, the last of them before ``before`` (RFC 3339),
        the longest idle first: what a thread TTL expires (sessions without runs are not listed)."""
        ...

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        """Remove the finished ``(run_id, session_id)`` runs: records and events. The events removed."""
        ...

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        """Remove what is kept of each of ``session_ids`` that has no run left (its owner, its tombstone)."""
        ...

    async def compact(self) -> None:
        """Leave nothing removed in the store's files (SQLite's write-ahead log); a server store has none."""
        ...


class EventLog(EventStore, RunStore, SessionStore, ThreadStore, Forgetting, Protocol):
    """A whole backend: what the stores open and the registry wires; each collaborator gets one part."""
