"""Which runs streams here follow, written to Redis in passes: everything that changed since the last pass in one
pipeline, so that ten thousand streams opening at once do not cost ten thousand round trips and tail restarts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio
import redis.exceptions

from api.runs.log.redis_keys import RunKeys
from tests.api.runs.cluster.conftest import INSTANCE, cluster_on
from tests.e2e.conftest import free_port


@dataclass
class Notified:
    seqs: dict[str, int] = field(default_factory=dict)

    def live(self, run_id: str) -> None:
        return None

    def notify_followers(self, run_id: str, seq: int) -> None:
        self.seqs[run_id] = seq


async def test_every_change_since_the_last_pass_is_written_in_one_pass(
    redis_client: redis.asyncio.Redis, keys: RunKeys
) -> None:
    for number in range(500):
        await redis_client.hset(keys.run(f"r_{number}"), "last_seq", number)
    cluster = cluster_on(redis_client, keys)
    notified = Notified()
    cluster._local = notified  # type: ignore[assignment]
    for number in range(500):
        cluster.following(f"r_{number}", True)
    cluster.following("r_7", False)  # the latest change of a run wins
    pipelines = []
    opened = redis_client.pipeline

    def pipeline(**options: Any) -> Any:
        pipelines.append(options)
        return opened(**options)

    redis_client.pipeline = pipeline  # type: ignore[method-assign,assignment]

    await cluster._apply_changes()

    assert len(pipelines) == 1, "one round trip for the whole pass"
    assert await redis_client.hget(keys.subscribers("r_3"), INSTANCE) == b"0"
    assert await redis_client.hget(keys.subscribers("r_7"), INSTANCE) is None
    assert "r_7" not in notified.seqs
    assert notified.seqs["r_499"] == 499, "followers learn the last seq committed, where the tail starts"
    assert len(notified.seqs) == 499
    assert cluster._changes == {}


async def test_a_pass_that_cannot_reach_redis_keeps_its_changes_for_the_next() -> None:
    unreachable = redis.asyncio.Redis(port=free_port(), socket_connect_timeout=0.2)
    cluster = cluster_on(unreachable, RunKeys("harness-test"))
    cluster._local = Notified()  # type: ignore[assignment]
    cluster.following("r_1", True)
    cluster.following("r_2", False)

    with pytest.raises(redis.exceptions.ConnectionError):
        await cluster._apply_changes()
    cluster.following("r_2", True)  # newer than the kept change

    assert cluster._changes == {"r_1": True, "r_2": True}
    await unreachable.aclose()


async def test_a_pass_forgets_a_run_before_it_writes_the_removal(
    redis_client: redis.asyncio.Redis, keys: RunKeys
) -> None:
    """A presence renewal that finds Redis lost this instance's presence writes again every run followed here
    (``_be_present``): one that runs while the removal is on its way must not bring the run back."""
    cluster = cluster_on(redis_client, keys)
    cluster._local = Notified()  # type: ignore[assignment]
    cluster.following("r_1", True)
    await cluster._apply_changes()
    cluster.following("r_1", False)
    removing = asyncio.create_task(cluster._apply_changes())
    await asyncio.sleep(0)  # the pass has taken its changes; its writes are on their way
    followed_meanwhile = set(cluster._followed)
    await removing

    assert followed_meanwhile == set()
    assert await redis_client.hget(keys.subscribers("r_1"), INSTANCE) is None
