"""A ``RedisCluster`` of this instance on the test's own Redis prefix, without PostgreSQL and without its tasks:
each test calls the one pass it is about (``_maintain``, ``_apply_changes``) and hands it the runs it sees."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from api.runs.cluster.redis import RedisCluster
from api.runs.log.redis import RedisEventLog
from api.runs.log.redis_keys import RunKeys

if TYPE_CHECKING:
    import redis.asyncio

    from tests.support.shared_stores import SharedStores

INSTANCE = "this-instance"


class Unreachable:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the cluster asked PostgreSQL ({name})")


def cluster_on(redis_client: redis.asyncio.Redis, keys: RunKeys) -> RedisCluster:
    log = RedisEventLog(
        redis_client,
        Unreachable(),  # type: ignore[arg-type]
        Unreachable(),  # type: ignore[arg-type]
        keys=keys,
        instance=INSTANCE,
        lease_s=10,
        replay_window=100,
    )
    return RedisCluster(
        redis_client,
        redis_client,
        Unreachable(),  # type: ignore[arg-type]
        log,
        keys=keys,
        instance=INSTANCE,
        lease_s=10,
        streams_per_subject=0,
    )


@pytest.fixture
def keys(shared: SharedStores) -> RunKeys:
    return RunKeys(shared.redis_prefix)


@pytest.fixture
def cluster(redis_client: redis.asyncio.Redis, keys: RunKeys) -> RedisCluster:
    return cluster_on(redis_client, keys)
