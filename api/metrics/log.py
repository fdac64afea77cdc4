"""``MeteredLog``: the event log as the registry sees it, with its appends, commits, replays and store round trips
counted. It wraps whichever backend the stores opened (SQLite, or Redis with its PostgreSQL archive): the
backends themselves carry no metrics code.

Appends stay synchronous and cheap: an event costs a dict update (its type's count), and the first event of a
run waiting for a commit a clock read; the commit histogram is observed once per run and commit.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from api.metrics.turns import WATCHED
from api.runs.errors import RunsError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence

    from prometheus_client.metrics import Histogram

    from api.metrics.instruments import Instruments
    from api.metrics.turns import TurnWatch
    from api.runs.log.ownership import SessionAccess
    from api.runs.log.protocols import EventLog
    from api.runs.log.records import RunRecord, StoredEvent
    from api.runs.log.threads import ThreadRecord

__all__ = ("MeteredLog",)

_T = TypeVar("_T")


class _Append(Protocol):
    def __call__(self, run_id: str, event: StoredEvent, record: RunRecord | None = None) -> None: ...


_OWN = frozenset({"_log", "_store", "_m", "_turns", "_lost", "_waiting", "append", "_latency", "_errors"})


class MeteredLog:
    """An ``EventLog`` that meters ``log``. Attributes it does not define are the backend's, read and written
    through (tests reach into a backend's internals through the registry's log)."""

    append: _Append
    """The backend's ``append``, counting: a closure set per instance, so that an event costs one call here."""

    def __init__(
        self,
        log: EventLog,
        *,
        store: str,
        instruments: Instruments,
        turns: TurnWatch,
        lost: Callable[[str], None],
    ) -> None:
        """``store``: the backend's name as a label; ``lost(run_id)``: the run was fenced (its lease was lost)."""
        self._log = log
        self._store = store
        self._m = instruments
        self._turns = turns
        self._lost = lost
        self._waiting: dict[str, list[Any]] = {}
        """Per run with events not committed yet: [first uncommitted seq, when it was appended, last seq]."""
        self.append = _metered_append(log, instruments.events.appended, self._waiting, turns)
        self._latency: dict[str, Histogram] = {}
        self._errors: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self._log, name, value)

    # --- EventStore ---

    async def open(self, on_commit: Callable[[str, int], None], on_fenced: Callable[[str], None]) -> None:
        def committed(run_id: str, seq: int) -> None:
            self._committed(run_id, seq)
            on_commit(run_id, seq)

        def fenced(run_id: str) -> None:
            self._lost(run_id)
            on_fenced(run_id)

        await self._timed("open", self._log.open(committed, fenced))

    async def close(self) -> None:
        await self._timed("close", self._log.close())

    def save_run(self, record: RunRecord) -> None:
        self._log.save_run(record)

    async def flush(self) -> None:
        await self._timed("flush", self._log.flush())

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        events, trimmed = await self._timed("read", self._log.read(run_id, after))
        if events:
            self._m.events_replayed.inc(len(events))
        return events, trimmed

    async def check(self) -> None:
        await self._timed("check", self._log.check())

    # --- RunStore ---

    async def load_run(self, run_id: str) -> RunRecord | None:
        return await self._timed("load_run", self._log.load_run(run_id))

    async def begin_run(self, record: RunRecord, access: SessionAccess, *, new_session: bool = False) -> str | None:
        return await self._timed("begin_run", self._log.begin_run(record, access, new_session=new_session))

    async def active_run(self, session_id: str) -> str | None:
        return await self._timed("active_run", self._log.active_run(session_id))

    async def enqueue_run(self, record: RunRecord) -> None:
        await self._timed("enqueue_run", self._log.enqueue_run(record))

    async def start_queued(self, session_id: str) -> RunRecord | None:
        return await self._timed("start_queued", self._log.start_queued(session_id))

    async def queued_sessions(self) -> list[str]:
        return await self._timed("queued_sessions", self._log.queued_sessions())

    async def queued_runs(self, session_id: str) -> list[str]:
        return await self._timed("queued_runs", self._log.queued_runs(session_id))

    async def waiting_runs(self) -> list[RunRecord]:
        return await self._timed("waiting_runs", self._log.waiting_runs())

    async def claim_run(self, run_id: str) -> RunRecord | None:
        return await self._timed("claim_run", self._log.claim_run(run_id))

    async def release_run(self, run_id: str) -> None:
        await self._timed("release_run", self._log.release_run(run_id))

    async def renew(self, run_ids: Iterable[str]) -> set[str]:
        return await self._timed("renew", self._log.renew(run_ids))

    async def lost_runs(self) -> list[str]:
        return await self._timed("lost_runs", self._log.lost_runs())

    # --- SessionStore ---

    async def session_owner(self, session_id: str) -> tuple[bool, str | None]:
        return await self._timed("session_owner", self._log.session_owner(session_id))

    async def hold_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        await self._timed("hold_sessions", self._log.hold_sessions(session_ids, holder))

    async def release_sessions(self, session_ids: Sequence[str], holder: str) -> None:
        await self._timed("release_sessions", self._log.release_sessions(session_ids, holder))

    # --- ThreadStore ---

    async def create_thread(self, thread: ThreadRecord, access: SessionAccess) -> tuple[ThreadRecord, bool]:
        return await self._timed("create_thread", self._log.create_thread(thread, access))

    async def save_thread(self, thread: ThreadRecord) -> None:
        await self._timed("save_thread", self._log.save_thread(thread))

    async def load_thread(self, thread_id: str) -> ThreadRecord | None:
        return await self._timed("load_thread", self._log.load_thread(thread_id))

    async def search_threads(self, access: SessionAccess) -> list[ThreadRecord]:
        return await self._timed("search_threads", self._log.search_threads(access))

    # --- Forgetting ---

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]:
        return await self._timed("session_runs", self._log.session_runs(session_ids))

    async def account_sessions(self, account_id: str) -> list[str]:
        return await self._timed("account_sessions", self._log.account_sessions(account_id))

    async def expired_runs(self, before: str, limit: int) -> list[tuple[str, str]]:
        return await self._timed("expired_runs", self._log.expired_runs(before, limit))

    async def idle_sessions(self, before: str, limit: int) -> list[str]:
        return await self._timed("idle_sessions", self._log.idle_sessions(before, limit))

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        return await self._timed("erase_runs", self._log.erase_runs(runs))

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        await self._timed("forget_sessions", self._log.forget_sessions(session_ids))

    async def compact(self) -> None:
        await self._timed("compact", self._log.compact())

    def forget(self, run_id: str) -> None:
        """The run stopped executing here unfinished (taken over): none of its events will be committed here."""
        self._waiting.pop(run_id, None)

    # --- internals ---

    def _committed(self, run_id: str, seq: int) -> None:
        waiting = self._waiting.get(run_id)
        if waiting is None or seq < waiting[0]:
            return
        now = time.perf_counter()
        self._m.event_commit.observe(now - waiting[1])
        if waiting[2] > seq:  # later events wait on: from now, a lower bound of their wait
            waiting[0], waiting[1] = seq + 1, now
        else:
            del self._waiting[run_id]

    async def _timed(self, operation: str, call: Awaitable[_T]) -> _T:
        started = time.perf_counter()
        try:
            return await call
        except RunsError:
            raise  # an answer of the store (a session someone else owns), not a failure of it
        except Exception:
            errors = self._errors.get(operation)
            if errors is None:
                errors = self._errors[operation] = self._m.store_errors.labels(self._store, operation)
            errors.inc()
            raise
        finally:
            latency = self._latency.get(operation)
            if latency is None:
                latency = self._latency[operation] = self._m.store_latency.labels(self._store, operation)
            latency.observe(time.perf_counter() - started)


def _metered_append(
    log: EventLog, appended: dict[str, int], waiting: dict[str, list[Any]], turns: TurnWatch
) -> _Append:
    """``log.append`` that counts, as a closure over what it needs: this runs for every event. Of a run's
    tokens, only the first of a turn goes on to ``turns`` (``awaiting_first_token``)."""
    append, saw, clock = log.append, turns.saw, time.perf_counter
    first_token_of = turns.awaiting_first_token

    def metered(run_id: str, event: StoredEvent, record: RunRecord | None = None) -> None:
        append(run_id, event, record)
        kind = event.type
        appended[kind] = appended.get(kind, 0) + 1
        waits = waiting.get(run_id)
        if waits is None:
            waiting[run_id] = [event.seq, clock(), event.seq]
        else:
            waits[2] = event.seq
        if kind in WATCHED or (kind == "token_delta" and run_id in first_token_of):
            saw(run_id, event)

    return metered
