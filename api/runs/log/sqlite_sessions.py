"""What the embedded event log keeps of its sessions in memory. One process owns the data directory, so each
session's unfinished and queued runs, the owners looked up so far, the sessions being erased and the runs this
process may write are known here without asking the file; the file is read into the book as the log opens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.errors import SessionBusy, SessionNotFound
from api.runs.log.records import FINISHED

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.log.ownership import SessionAccess
    from api.runs.log.records import EncodedRecord

__all__ = ("SessionBook",)


class SessionBook:
    def __init__(self) -> None:
        self.held: set[str] = set()
        """Runs this process may write."""
        self.active: dict[str, str] = {}
        """Each session's unfinished run."""
        self.queues: dict[str, list[str]] = {}
        """Each session's queued (``pending``) runs, oldest first."""
        self.owners: dict[str, str | None] = {}
        """The owners of the sessions looked up so far: a cache of the ``sessions`` table, which one process owns."""
        self.erasing: dict[str, str] = {}
        """The sessions being erased, by who holds them: the ``session_erasures`` table's tombstones."""

    def check_access(self, session_id: str, access: SessionAccess, *, noun: str) -> bool:
        """Refuse a session of someone else's, or one being erased (``noun``: what the caller calls it); whether
        the session is known."""
        known = session_id in self.owners
        erasing = session_id in self.erasing
        if (known and not access.may_continue(self.owners[session_id])) or (erasing and not known):
            raise SessionNotFound(f"There is no {noun} {session_id}.")
        if erasing:
            raise SessionBusy(f"{noun.capitalize()} {session_id} is being erased.")
        return known

    def claim(self, session_id: str, run_id: str) -> str | None:
        """Make ``run_id`` the session's run unless it has one, or runs queued: then the run it is busy with."""
        if (busy := self.active.get(session_id)) is not None:
            return busy
        if queued := self.queues.get(session_id):
            return queued[0]
        self.active[session_id] = run_id
        self.held.add(run_id)
        return None

    def enqueue(self, session_id: str, run_id: str) -> None:
        if session_id in self.erasing:
            raise SessionBusy(f"Session {session_id} is being erased.")
        self.queues.setdefault(session_id, []).append(run_id)

    def take_queued(self, session_id: str) -> str | None:
        """Take the session's first queued run as its run, if the session is free and not being erased."""
        if not (queue := self.queues.get(session_id)) or session_id in self.active:
            return None
        if session_id in self.erasing or (run_id := queue[0]) in self.held:
            return None  # the session is being erased, or its first run cancelled: that settles it
        del queue[0]
        if not queue:
            del self.queues[session_id]
        self.active[session_id] = run_id
        self.held.add(run_id)
        return run_id

    def let_go(self, session_id: str, run_id: str) -> None:
        """A run taken from the queue was erased, or ended while queued: the session is free again."""
        self.held.discard(run_id)
        if self.active.get(session_id) == run_id:
            del self.active[session_id]

    def unqueue(self, runs: Sequence[tuple[str, str]]) -> None:
        """The ``(run_id, session_id)`` runs are erased: none of them is queued any more."""
        for run_id, session_id in runs:
            queue = self.queues.get(session_id, [])
            if run_id in queue:
                queue.remove(run_id)
            if not queue:
                self.queues.pop(session_id, None)

    def recorded(self, record: EncodedRecord) -> None:
        """A run's record is written: a run no longer running is not written by this process any more, and an
        ended one leaves its session (or its queue, cancelled while queued)."""
        if record.status != "running":
            self.held.discard(record.run_id)
        if record.status in FINISHED and self.active.get(record.session_id) == record.run_id:
            del self.active[record.session_id]
        if record.status in FINISHED and record.run_id in (queue := self.queues.get(record.session_id, [])):
            queue.remove(record.run_id)  # cancelled while it was queued
            if not queue:
                del self.queues[record.session_id]

    def hold(self, session_ids: Sequence[str], holder: str) -> None:
        for session_id in session_ids:
            self.erasing.setdefault(session_id, holder)

    def release(self, session_ids: Sequence[str], holder: str) -> None:
        for session_id in session_ids:
            if self.erasing.get(session_id) == holder:
                del self.erasing[session_id]
