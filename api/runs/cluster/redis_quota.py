"""The stream quota counted across every instance: one sorted set per subject in Redis, slots by expiry.

Each slot expires ``ttl`` after it was taken or last renewed; the cluster's maintenance loop renews the
slots of this instance's open streams, so the streams of a dead instance stop counting on their own.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from typing import TYPE_CHECKING

from api.runs.cluster.quotas import too_many
from api.runs.log.redis_scripts import STREAM_SLOT

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ("RedisStreamQuota",)


class RedisStreamQuota:
    def __init__(self, redis: Redis, *, prefix: str, instance: str, limit: int, ttl_ms: int) -> None:
        self._redis = redis
        self._prefix = prefix
        self._instance = instance
        self._limit = limit
        self._ttl_ms = ttl_ms
        self._take = redis.register_script(STREAM_SLOT)
        self._numbers = itertools.count()
        self._open: dict[str, str] = {}
        """This instance's open slots, each with its subject's key."""
        self._releasing: dict[str, set[asyncio.Future[int]]] = {}
        """The removals of slots given back here, by subject key, until Redis has them."""

    def _key(self, subject: str) -> str:
        return f"{self._prefix}:streams:{subject}"

    async def acquire(self, subject: str) -> str:
        slot = f"{self._instance}:{next(self._numbers)}"
        key = self._key(subject)
        if releasing := self._releasing.get(key):
            # a stream of this subject that ended here is counted out before this one is counted in: a client that
            # closes a stream and opens another is not refused for the one it closed
            await asyncio.wait(releasing)
        if not await self._take(keys=[key], args=[slot, self._limit, self._ttl_ms]):
            raise too_many(self._limit)
        self._open[slot] = key
        return slot

    async def release(self, slot: str) -> None:
        key = self._open.pop(slot, None)
        if key is None:
            return
        removal = asyncio.ensure_future(self._redis.zrem(key, slot))
        self._releasing.setdefault(key, set()).add(removal)
        removal.add_done_callback(functools.partial(self._released, key))
        await asyncio.shield(removal)  # a stream's end is often a cancellation, which must not leave the slot taken

    def _released(self, key: str, removal: asyncio.Future[int]) -> None:
        releasing = self._releasing[key]
        releasing.discard(removal)
        if not releasing:
            del self._releasing[key]
        if not removal.cancelled():
            removal.exception()  # retrieved: a removal that failed leaves the slot to expire, not a warning

    async def renew(self) -> None:
        """Push back the expiry of every slot this instance holds."""
        if not self._open:
            return
        time = await self._redis.time()
        expiry = time[0] * 1000 + time[1] // 1000 + self._ttl_ms
        by_subject: dict[str, dict[str, float]] = {}
        for slot, key in self._open.items():
            by_subject.setdefault(key, {})[slot] = expiry
        async with self._redis.pipeline(transaction=False) as pipe:
            for key, slots in by_subject.items():  # two commands a subject, however many streams it holds
                pipe.zadd(key, slots, xx=True)
                pipe.pexpire(key, self._ttl_ms)
            await pipe.execute()
