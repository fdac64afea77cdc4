"""Copying the shared event log's records to PostgreSQL (``RunArchive``), with the owners of the sessions the
service made (``SessionOwners.claim_new``), by a task of its own apart from the writer: an outage there never holds
up events. What is not copied yet waits here, the newest record of a run winning."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from agent.stores import is_store_failure
from api.runs.log.redis_appends import RETRY_FIRST_S, RETRY_MAX_S
from api.stopping import stop_task

if TYPE_CHECKING:
    from collections.abc import Iterable

    from api.runs.log.archive import RunArchive
    from api.runs.log.reachability import Reachability
    from api.runs.log.records import EncodedRecord
    from api.runs.log.session_owners import SessionOwners

__all__ = ("ArchiveCopier",)

logger = logging.getLogger("api.runs.log.redis")  # the event log's own: what an operator filters on


class ArchiveCopier:
    def __init__(self, archive: RunArchive, owners: SessionOwners, reachability: Reachability) -> None:
        self._archive = archive
        self._owners = owners
        self._reachability = reachability
        self._unarchived: dict[str, EncodedRecord] = {}
        self._unclaimed: dict[str, tuple[str, str | None, str]] = {}
        """Sessions the service made, whose owner PostgreSQL does not have yet: ``(session, owner, first run)``."""
        self._wanted = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._copy_forever(), name="run-archiver")

    def claimed(self, session_id: str, owner: str | None, run_id: str) -> None:
        """The service made the session ``session_id`` for ``owner``, its first run ``run_id``."""
        self._unclaimed[session_id] = (session_id, owner, run_id)

    def committed(self, run_id: str, record: EncodedRecord) -> None:
        """``record`` is in Redis: copy it."""
        self._unarchived[run_id] = record
        self._wanted.set()

    def forget_runs(self, run_ids: Iterable[str]) -> None:
        for run_id in run_ids:
            self._unarchived.pop(run_id, None)

    def forget_sessions(self, session_ids: Iterable[str]) -> None:
        for session_id in session_ids:
            self._unclaimed.pop(session_id, None)

    async def stop(self) -> None:
        """Stop copying, once what waits is copied, or given up after a short wait."""
        if self._task is not None:
            await stop_task(self._task)
        if not (self._unarchived or self._unclaimed):
            return
        try:
            async with asyncio.timeout(RETRY_MAX_S):
                await self._archive.save(list(self._unarchived.values()))
                await self._owners.claim_new(list(self._unclaimed.values()))
        except Exception as exc:
            if not (isinstance(exc, TimeoutError) or is_store_failure(exc)):
                raise
            logger.error(
                "closing with %d run records and %d session owners not copied to PostgreSQL",
                len(self._unarchived),
                len(self._unclaimed),
            )

    async def _copy_forever(self) -> None:
        delay = RETRY_FIRST_S
        while True:
            await self._wanted.wait()
            self._wanted.clear()
            records, self._unarchived = self._unarchived, {}
            claims, self._unclaimed = self._unclaimed, {}
            try:
                await self._archive.save(list(records.values()))
                # after the runs' copies: the claim of a run erased meanwhile meets its tombstone there
                await self._owners.claim_new(list(claims.values()))
            except Exception as exc:
                if not is_store_failure(exc):
                    raise
                self._reachability.failing(exc, "PostgreSQL")
                self._unarchived = records | self._unarchived  # newer records of the same runs win
                self._unclaimed = claims | self._unclaimed
                self._wanted.set()
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
                continue
            self._reachability.recovered("PostgreSQL")
            delay = RETRY_FIRST_S
