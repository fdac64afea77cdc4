"""Forgetting in the shared event log: a session's runs as Redis and the archive know them, and the removal of runs
and of emptied sessions from both, Redis's copies first and PostgreSQL's rows last."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redis.asyncio import Redis

    from api.runs.log.archive import RunArchive
    from api.runs.log.redis_archiving import ArchiveCopier
    from api.runs.log.redis_keys import RunKeys
    from api.runs.log.session_owners import SessionOwners

__all__ = ("RedisErasure",)


class RedisErasure:
    def __init__(
        self, redis: Redis, keys: RunKeys, archive: RunArchive, owners: SessionOwners, copier: ArchiveCopier
    ) -> None:
        self._redis = redis
        self._keys = keys
        self._archive = archive
        self._owners = owners
        self._copier = copier

    async def session_runs(self, session_ids: Sequence[str]) -> dict[str, list[str]]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for session_id in session_ids:
                pipe.smembers(self._keys.session_runs(session_id))
            members = await pipe.execute()
        found = {
            session_id: sorted(member.decode() for member in runs)
            for session_id, runs in zip(session_ids, members, strict=True)
            if runs
        }
        for session_id, run_id in await self._archive.session_runs(session_ids):
            runs = found.setdefault(session_id, [])
            if run_id not in runs:
                runs.append(run_id)
        return found

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        keys = self._keys
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, _ in runs:
                pipe.hmget(keys.run(run_id), "last_seq", "trimmed")
            held = [_events_held(*fields) for fields in await pipe.execute()]
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, session_id in runs:
                pipe.delete(
                    keys.run(run_id),
                    keys.events(run_id),
                    keys.lease(run_id),
                    keys.subscribers(run_id),
                    keys.cancel(run_id),
                )
                pipe.srem(keys.running, run_id)
                pipe.zrem(keys.waiting, run_id)
                pipe.srem(keys.session_runs(session_id), run_id)
            await pipe.execute()
        self._copier.forget_runs(run_id for run_id, _ in runs)
        await self._archive.erase([run_id for run_id, _ in runs])
        return sum(held)

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        """Redis's copies first, PostgreSQL's rows last: until the row goes, a turn that misses the copies finds
        the tombstone there."""
        remaining = await self.session_runs(session_ids)
        gone = [session_id for session_id in session_ids if session_id not in remaining]
        if gone:
            keys = self._keys
            await self._redis.delete(
                *(
                    key
                    for s in gone
                    for key in (keys.owner(s), keys.session_runs(s), keys.session(s), keys.erasing(s), keys.queue(s))
                )
            )
            await self._redis.srem(keys.queued, *gone)
            self._copier.forget_sessions(gone)
            await self._owners.forget(gone)


def _events_held(last_seq: bytes | None, trimmed: bytes | None) -> int:
    """The events a run's log holds: all of them, or, once trimmed, those after the trim point (the topology
    aside)."""
    last, through = int(last_seq or 0), int(trimmed or 1)
    return last if through <= 1 else last - through
