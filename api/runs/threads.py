"""Threads: the sessions the Agent Protocol names, with the graph they run, their metadata and their times.

A thread belongs to its session's owner and does not exist for anyone else (404), exactly as a session does
(one ownership rule, ``api.runs.log.ownership``). A session begun by ``POST /chat`` is a thread of the support
agent too, with no record of its own: it is shown with the times of its runs.

With langgraph.json's ``auth.path``, each request sees the book ``narrowed`` by what its ``@auth.on.threads``
handler returned: beneath ownership, only the threads whose metadata match its filter exist for it, and a thread
it creates carries the metadata the handler wrote (``owner``, say).
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Protocol

from agent import carries_personal_data, format_timestamp
from api.runs.errors import SessionIdRefused, SessionNotFound, ThreadIdInvalid
from api.runs.log.protocols import RunStore, SessionStore, ThreadStore
from api.runs.log.threads import ThreadRecord
from api.runs.metadata_filter import matches
from contracts import ID_PATTERN

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from agent import Clock, IdFactory
    from api.runs.access import AccessPolicy
    from api.runs.log.records import RunRecord
    from api.runs.metadata_filter import MetadataFilter
    from api.runs.principal import Principal

__all__ = ("ThreadBook", "ThreadLog")

_SESSION_ID = re.compile(ID_PATTERN)


class ThreadLog(ThreadStore, SessionStore, RunStore, Protocol):
    """The part of the event log threads use."""

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]: ...


class ThreadBook:
    def __init__(self, log: ThreadLog, *, access: AccessPolicy, ids: IdFactory, clock: Clock) -> None:
        self._log = log
        self._access = access
        self._ids = ids
        self._clock = clock
        self._where: MetadataFilter | None = None
        self._stamped: dict[str, Any] | None = None

    def narrowed(self, where: MetadataFilter | None, stamped: dict[str, Any] | None = None) -> ThreadBook:
        """This book as one request sees it: only the threads whose metadata match ``where`` exist (any other is
        a 404, absent from searches), and a thread it creates gets ``stamped`` over the metadata it was given."""
        view = copy.copy(self)
        view._where = where
        view._stamped = stamped
        return view

    @property
    def stamped(self) -> dict[str, Any]:
        """The metadata a thread this book creates gets over what it was given (``narrowed``)."""
        return dict(self._stamped or {})

    async def create(
        self, thread_id: str | None, metadata: dict[str, Any], principal: Principal
    ) -> tuple[ThreadRecord, bool]:
        """A new thread of ``principal``'s (``thread_id``, or one the service makes); when it exists already and is
        theirs, that one and False. Someone else's is a 404."""
        if thread_id is not None and not _SESSION_ID.search(thread_id):
            raise ThreadIdInvalid(f"A thread id is 1-64 of [A-Za-z0-9_-], not starting with _ or -; not {thread_id!r}.")
        if thread_id is not None and carries_personal_data(thread_id):
            raise SessionIdRefused
        now = self._now()
        thread = ThreadRecord(
            thread_id=thread_id or self._ids.new("s"),
            metadata={**metadata, **(self._stamped or {})},
            created_at=now,
            updated_at=now,
        )
        made, created = await self._log.create_thread(thread, self._access.session_access(principal))
        if not created and not matches(made.metadata, self._where):
            raise SessionNotFound(f"There is no thread {made.thread_id}.")
        return made, created

    async def copy(self, source: ThreadRecord, principal: Principal) -> ThreadRecord:
        """A new thread of ``principal``'s with a new id, ``source``'s graph and metadata (its checkpoints are the
        caller's to copy)."""
        now = self._now()
        thread = ThreadRecord(
            thread_id=self._ids.new("s"),
            graph_id=source.graph_id,
            metadata=dict(source.metadata),
            created_at=now,
            updated_at=now,
        )
        copied, _ = await self._log.create_thread(thread, self._access.session_access(principal))
        return copied

    async def get(self, thread_id: str, principal: Principal) -> ThreadRecord:
        """The thread, when it is ``principal``'s; ``SessionNotFound`` (404) else."""
        known, owner = await self._log.session_owner(thread_id)
        if not known or not self._access.session_access(principal).may_continue(owner):
            raise SessionNotFound(f"There is no thread {thread_id}.")
        return await self._visible(thread_id)

    async def for_decider(self, thread_id: str, principal: Principal) -> ThreadRecord:
        """The thread of a run waiting at an interrupt that ``principal`` may decide though it is not theirs (an
        approver's, with ``HARNESS_APPROVER_ROLE``); ``SessionNotFound`` (404) for every other thread."""
        run_id = await self._log.active_run(thread_id)
        record = None if run_id is None else await self._log.load_run(run_id)
        if record is None or record.snapshot.status != "waiting" or not self._access.may_decide(principal, record):
            raise SessionNotFound(f"There is no thread {thread_id}.")
        return await self._visible(thread_id)

    async def search(self, principal: Principal) -> list[ThreadRecord]:
        found = await self._log.search_threads(self._access.session_access(principal))
        return [thread for thread in found if matches(thread.metadata, self._where)]

    async def filtered_out(self, thread_id: str, where: MetadataFilter) -> bool:
        """Whether ``where`` excludes the thread (one it does not find included), whoever it belongs to: the check a
        route makes before its own (ownership, or an approver's right to a run it decides)."""
        found = await self._log.load_thread(thread_id)
        return not matches(found.metadata if found is not None else {}, where)

    async def hides(self, thread_id: str) -> bool:
        """Whether this book's filter excludes the thread's record, whoever it belongs to: how a run's thread is
        checked where the run alone is named (a session with no record, a ``/chat`` one, has no metadata to hold
        a filter on and is left to ownership there)."""
        if self._where is None:
            return False
        found = await self._log.load_thread(thread_id)
        return found is not None and not matches(found.metadata, self._where)

    async def _visible(self, thread_id: str) -> ThreadRecord:
        found = await self._log.load_thread(thread_id)
        thread = found if found is not None else await self._of_session(thread_id)
        if not matches(thread.metadata, self._where):
            raise SessionNotFound(f"There is no thread {thread_id}.")
        return thread

    async def used(self, thread: ThreadRecord, graph_id: str) -> None:
        """A run of ``graph_id`` began on ``thread``: it is the thread's graph now, and its last use."""
        thread.graph_id = thread.graph_id or graph_id
        thread.updated_at = self._now()
        await self._log.save_thread(thread)

    async def run_ids(self, thread_id: str) -> list[str]:
        return (await self._log.session_runs([thread_id])).get(thread_id, [])

    async def active_run(self, thread_id: str) -> str | None:
        return await self._log.active_run(thread_id)

    async def last_run(self, thread_id: str) -> RunRecord | None:
        """The thread's newest run (what its status ``error`` is read from)."""
        records = [record for run_id in await self.run_ids(thread_id) if (record := await self._log.load_run(run_id))]
        return max(records, key=lambda record: (record.snapshot.started_at, record.snapshot.run_id), default=None)

    async def _of_session(self, session_id: str) -> ThreadRecord:
        """A ``/chat`` session as a thread: the support agent's, with its first and last runs' times."""
        records = [record for run_id in await self.run_ids(session_id) if (record := await self._log.load_run(run_id))]
        started = min((record.snapshot.started_at for record in records), default=self._now())
        changed = max((record.snapshot.updated_at for record in records), default=started)
        return ThreadRecord(thread_id=session_id, created_at=started, updated_at=changed)

    def _now(self) -> str:
        return format_timestamp(self._clock.now_ns())
