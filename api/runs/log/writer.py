"""The one batched writer of both event logs: what is queued while the loop is busy commits together.

Operations (events, records, session rows) are queued in order and return at once; the commit window says when
what is queued is due (``CommitWindow``); the backend's ``commit`` writes one batch, in order, and publishes what
it committed. A commit that raises stops the writer for good: ``flush`` raises from then on, and so does
``raise_on_failure``, which the log's ``check`` calls, so the service says it cannot take turns rather than take
turns it cannot keep. A backend whose store may come back (Redis) retries inside its ``commit`` instead of
raising.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Generic, TypeVar

from api.runs.log.commit_window import CommitWindow
from api.stopping import stop_task

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = ("BatchWriter", "LogUnwritable")

_Op = TypeVar("_Op")
logger = logging.getLogger(__name__)


class LogUnwritable(RuntimeError):
    """The event log's writer stopped after a failed commit: nothing more is persisted."""


class BatchWriter(Generic[_Op]):
    def __init__(self, commit: Callable[[list[_Op]], Awaitable[None]]) -> None:
        self._commit = commit
        self._queue: list[_Op] = []
        self._due = CommitWindow()
        self._queued_batches = 0
        self._committed_batches = 0
        self._batch_done = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None

    @property
    def pending(self) -> int:
        """Operations queued and not yet in a batch."""
        return len(self._queue)

    def put(self, op: _Op) -> None:
        """Queue ``op`` after everything queued before it; ``queued`` says when it is due."""
        self._queue.append(op)

    def queued(self, event_type: str | None) -> None:
        """An event of ``event_type`` (None: a record) was put: due at once or within the window."""
        self._due.queued(event_type)

    def start(self) -> None:
        self._task = asyncio.create_task(self._write_batches(), name="event-log-writer")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)

    async def flush(self) -> None:
        """Wait until everything queued so far is committed; ``LogUnwritable`` once the writer has stopped."""
        if not self._queue and self._committed_batches == self._queued_batches:
            self.raise_on_failure()
            return
        if self._queue:
            self._due.now()
        target = self._queued_batches + (1 if self._queue else 0)
        async with self._batch_done:
            await self._batch_done.wait_for(lambda: self._committed_batches >= target or self._failure is not None)
        self.raise_on_failure()

    def raise_on_failure(self) -> None:
        if self._failure is not None:
            raise LogUnwritable("the event log can no longer write") from self._failure

    async def _write_batches(self) -> None:
        while True:
            await self._due.wait()
            batch, self._queue = self._queue, []
            self._queued_batches += 1
            try:
                await self._commit(batch)
            except Exception as exc:
                logger.exception("event log write failed; no further events are persisted")
                self._failure = exc
                await self._batch_committed()
                return
            self._committed_batches += 1
            await self._batch_committed()

    async def _batch_committed(self) -> None:
        async with self._batch_done:
            self._batch_done.notify_all()
