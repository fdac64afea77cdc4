"""The ``BEGIN`` of a run on the shared stores: who may begin a run in a session, decided by one script on Redis's
copy of the session's owner, and by PostgreSQL's claim (``SessionOwners``) when Redis has none."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.runs.errors import SessionBusy, SessionNotFound
from api.runs.log.redis_scripts import BEGIN

if TYPE_CHECKING:
    from collections.abc import Callable

    from redis.asyncio import Redis

    from api.runs.log.ownership import SessionAccess
    from api.runs.log.records import EncodedRecord, RunRecord
    from api.runs.log.redis_archiving import ArchiveCopier
    from api.runs.log.redis_keys import RunKeys
    from api.runs.log.session_owners import SessionOwners

__all__ = ("RedisBegin",)


class RedisBegin:
    def __init__(
        self,
        redis: Redis,
        keys: RunKeys,
        owners: SessionOwners,
        copier: ArchiveCopier,
        *,
        instance: str,
        lease_ms: int,
        encode: Callable[[RunRecord], EncodedRecord],
    ) -> None:
        self._keys = keys
        self._owners = owners
        self._copier = copier
        """Where a run begun, and a session made, wait to be copied to PostgreSQL."""
        self._begin = redis.register_script(BEGIN)
        self._instance = instance
        self._lease_ms = lease_ms
        self._encode = encode
        """The record as Redis and the archive store it."""

    async def begin_run(self, record: RunRecord, access: SessionAccess, *, new_session: bool = False) -> str | None:
        """A session the service has just made is the caller's in Redis at once and in PostgreSQL right after
        (``claim_new``): no PostgreSQL round trip before the first token. Any other session takes Redis's copy
        of its owner, or, without one, PostgreSQL's claim (which makes a new session the caller's)."""
        snapshot = record.snapshot
        run_id, session_id = snapshot.run_id, snapshot.session_id
        outcome = await self._begin_script(record, access, copy=new_session, owner=access.owner)
        if outcome[0] == b"unknown":
            owner, erasing = await self._owners.claim(session_id, access.owner)
            if erasing or not access.may_continue(owner):
                raise _refusal(session_id, access, owner, erasing=erasing)
            outcome = await self._begin_script(record, access, copy=True, owner=owner)
        if outcome[0] == b"erasing":
            known, owner = await self._owners.owner(session_id)
            raise _refusal(session_id, access, owner, erasing=known)
        if outcome[0] == b"foreign":
            raise SessionNotFound(f"There is no session {session_id}.")
        if outcome[0] == b"busy":
            return str(outcome[1].decode())
        if new_session:
            self._copier.claimed(session_id, access.owner, run_id)
        self._copier.committed(run_id, self._encode(record))
        return None

    async def _begin_script(
        self, record: RunRecord, access: SessionAccess, *, copy: bool, owner: str | None = None
    ) -> Any:
        """``BEGIN``; with ``copy``, ``owner`` is the session's owner for Redis to copy in should it have none."""
        keys = self._keys
        run_id, session_id = record.snapshot.run_id, record.snapshot.session_id
        return await self._begin(
            keys=[
                keys.session(session_id),
                keys.run(run_id),
                keys.lease(run_id),
                keys.running,
                keys.owner(session_id),
                keys.erasing(session_id),
            ],
            args=[
                keys.prefix,
                run_id,
                self._instance,
                self._lease_ms,
                self._encode(record).data,
                session_id,
                access.owner or "",
                int(access.any_session),
                int(access.unowned_sessions),
                int(copy),
                owner or "",
            ],
        )


def _refusal(session_id: str, access: SessionAccess, owner: str | None, *, erasing: bool) -> Exception:
    """A turn that may not begin: 409 for the owner of a session being erased, 404 for anyone else."""
    if erasing and access.may_continue(owner):
        return SessionBusy(f"Session {session_id} is being erased.")
    return SessionNotFound(f"There is no session {session_id}.")
