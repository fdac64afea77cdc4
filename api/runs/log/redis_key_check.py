"""The key check's record and probes in Redis: one record for the service's key prefix (``P:key_check``).

The probes walk the prefix's runs (``SCAN``): each run hash's record and topology, and the first and last
entry of each event stream (a run's entries are written by one service at a time, so a stream that mixes
plain and sealed entries has a plain one at an end). They run when no record proves that everything is
sealed: when a key is first set, or the first time this version starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from agent import is_sealed
from agent.stores import RECORD_TYPE

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from redis.asyncio import Redis

    from api.runs.log.redis_keys import RunKeys

__all__ = ("RedisKeyCheck",)

_GLOB_SPECIALS = str.maketrans({character: f"\\{character}" for character in "\\*?[]"})


class RedisKeyCheck:
    what = "run events"

    def __init__(self, redis: Redis, keys: RunKeys) -> None:
        self._redis = redis
        self._keys = keys
        self._record = f"{keys.prefix}:key_check"
        self.where = f"Redis (prefix {keys.prefix})"

    async def read_record(self) -> tuple[str, bytes] | None:
        found = cast("list[bytes | None]", await self._redis.hmget(self._record, "type", "value"))
        return (found[0].decode(), found[1]) if found[0] is not None and found[1] is not None else None

    async def write_record(self, record: tuple[str, bytes]) -> None:
        await self._redis.hset(self._record, mapping={"type": record[0], "value": record[1]})

    async def delete_record(self) -> None:
        await self._redis.delete(self._record)

    async def one_encrypted_value(self) -> tuple[str, bytes] | None:
        async for _, value in self._values():
            if is_sealed(value):
                return RECORD_TYPE, value
        return None

    async def one_plain_value(self) -> str | None:
        async for where, value in self._values():
            if not is_sealed(value):
                return where
        return None

    async def _values(self) -> AsyncIterator[tuple[str, bytes]]:
        """Every run's record and topology, and its events' first and last frames, with what holds them."""
        pattern = f"{self._keys.prefix.translate(_GLOB_SPECIALS)}:run:*"
        async for key in self._redis.scan_iter(match=pattern, count=1000, _type="hash"):
            for value in cast("list[bytes | None]", await self._redis.hmget(key, "record", "topology")):
                if value is not None:
                    yield "run records", value
        async for key in self._redis.scan_iter(match=pattern, count=1000, _type="stream"):
            first = cast("list[tuple[bytes, dict[bytes, bytes]]]", await self._redis.xrange(key, count=1))
            last = cast("list[tuple[bytes, dict[bytes, bytes]]]", await self._redis.xrevrange(key, count=1))
            for _, fields in first + last:
                yield "run events", fields[b"f"]
