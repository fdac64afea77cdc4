"""A subject's open streams counted in Redis: a slot given back here is counted out before this instance counts in
the subject's next stream, and a stream that ends by cancellation still gives its slot back."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

from api.runs.cluster.redis_quota import RedisStreamQuota
from api.runs.errors import TooManyStreams
from tests.api.runs.cluster.conftest import INSTANCE

if TYPE_CHECKING:
    import redis.asyncio

    from api.runs.log.redis_keys import RunKeys


def slow_removals(redis_client: redis.asyncio.Redis) -> asyncio.Event:
    """Hold every ``ZREM`` of ``redis_client`` until the event returned is set (a removal still on its way)."""
    arrived = asyncio.Event()
    removing = redis_client.zrem

    async def zrem(*args: Any) -> Any:
        await arrived.wait()
        return await removing(*args)

    redis_client.zrem = zrem  # type: ignore[method-assign]
    return arrived


async def release_on_its_way(
    quota: RedisStreamQuota, redis_client: redis.asyncio.Redis
) -> tuple[str, asyncio.Event, asyncio.Task[None]]:
    """Alice's slot, its release started and its removal held until the event is set."""
    slot = await quota.acquire("alice")
    arrived = slow_removals(redis_client)
    releasing = asyncio.create_task(quota.release(slot))
    await asyncio.sleep(0)
    return slot, arrived, releasing


@pytest.fixture
def quota(redis_client: redis.asyncio.Redis, keys: RunKeys) -> RedisStreamQuota:
    return RedisStreamQuota(redis_client, prefix=keys.prefix, instance=INSTANCE, limit=1, ttl_ms=30_000)


async def test_a_stream_opened_as_another_closes_waits_for_its_slot(
    quota: RedisStreamQuota, redis_client: redis.asyncio.Redis
) -> None:
    first, arrived, releasing = await release_on_its_way(quota, redis_client)
    acquiring = asyncio.create_task(quota.acquire("alice"))
    await asyncio.sleep(0.05)
    waited = not acquiring.done()
    arrived.set()
    second = await acquiring
    await releasing

    assert waited, "the next stream is counted once the closed one is counted out"
    assert second != first
    with pytest.raises(TooManyStreams):
        await quota.acquire("alice")


async def test_a_release_cancelled_on_its_way_still_gives_the_slot_back(
    quota: RedisStreamQuota, redis_client: redis.asyncio.Redis
) -> None:
    first, arrived, releasing = await release_on_its_way(quota, redis_client)
    releasing.cancel()
    arrived.set()
    with pytest.raises(asyncio.CancelledError):
        await releasing

    assert await quota.acquire("alice") != first, "the removal went on without the stream that asked for it"
