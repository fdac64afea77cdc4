"""The maintenance loop's lease renewal: a lease another instance holds, or that lapsed, fences the run here; a
lease the run's own pause or ending released between the loop's look and the renewal does not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from tests.api.runs.cluster.conftest import INSTANCE

if TYPE_CHECKING:
    import redis.asyncio

    from api.runs.cluster.redis import RedisCluster
    from api.runs.log.redis_keys import RunKeys


@dataclass
class RunHere:
    run_id: str
    status: str

    @property
    def settled(self) -> bool:
        return self.status != "running"

    def abort(self, reason: str) -> None:
        raise AssertionError(f"the renewal aborted {self.run_id} ({reason})")


@dataclass
class RunsHere:
    """This instance's runs as the cluster sees them: every one held here, its lease renewed by the loop."""

    runs: dict[str, RunHere]
    fenced_runs: list[str] = field(default_factory=list)

    def live(self, run_id: str) -> RunHere | None:
        return self.runs.get(run_id)

    def held_here(self) -> list[str]:
        return list(self.runs)

    def fenced(self, run_id: str) -> None:
        self.fenced_runs.append(run_id)

    async def end_lost_runs(self) -> None:
        return None

    def orphaned(self) -> list[RunHere]:
        return []


async def maintain(cluster: RedisCluster, runs: RunsHere) -> None:
    cluster._local = runs  # type: ignore[assignment]  # what start() hands it, without its tasks
    await cluster._maintain()


async def test_a_lease_still_held_is_renewed(
    redis_client: redis.asyncio.Redis, keys: RunKeys, cluster: RedisCluster
) -> None:
    await redis_client.set(keys.lease("r_1"), INSTANCE, px=1000)
    runs = RunsHere({"r_1": RunHere("r_1", "running")})

    await maintain(cluster, runs)

    assert runs.fenced_runs == []
    assert await redis_client.pttl(keys.lease("r_1")) > 1000, "renewed to the whole lease"


async def test_a_lease_another_instance_took_fences_the_run(
    redis_client: redis.asyncio.Redis, keys: RunKeys, cluster: RedisCluster
) -> None:
    await redis_client.set(keys.lease("r_running"), "another-instance", px=10_000)
    await redis_client.set(keys.lease("r_paused"), "another-instance", px=10_000)
    runs = RunsHere({"r_running": RunHere("r_running", "running"), "r_paused": RunHere("r_paused", "waiting")})

    await maintain(cluster, runs)

    assert runs.fenced_runs == ["r_running"], "a settled run's ending is fenced by its own commit, not here"


async def test_a_lapsed_lease_of_a_running_run_fences_it(cluster: RedisCluster) -> None:
    runs = RunsHere({"r_1": RunHere("r_1", "running")})  # no lease in Redis: it lapsed

    await maintain(cluster, runs)

    assert runs.fenced_runs == ["r_1"]


@pytest.mark.parametrize("status", ["waiting", "completed", "failed", "cancelled"])
async def test_a_lease_released_by_the_runs_own_ending_does_not_fence_it(cluster: RedisCluster, status: str) -> None:
    """The race two instances hit under load: the loop lists a run as held here, the run pauses or ends, and the
    commit of that event deletes its lease before the renewal reaches Redis. The run is not taken over."""
    runs = RunsHere({"r_1": RunHere("r_1", status)})  # its settling commit deleted the lease

    await maintain(cluster, runs)

    assert runs.fenced_runs == []
