"""``MeteredCluster``: the cluster as the registry sees it, with its store round trips timed and the runs it takes
away from this instance (a lease renewal that came back lost) counted. ``RedisCluster`` carries no metrics code."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from api.metrics.instruments import Instruments
    from api.runs.cluster.protocol import Cluster, ClusterRun, LocalRuns
    from api.runs.cluster.quotas import StreamQuota

__all__ = ("MeteredCluster",)

_T = TypeVar("_T")


class MeteredCluster:
    def __init__(self, cluster: Cluster, *, instruments: Instruments, lost: Callable[[str], None]) -> None:
        """``lost(run_id)``: the run was fenced here (its lease was lost), called before the registry hears it."""
        self._cluster = cluster
        self._m = instruments
        self._lost = lost

    @property
    def streams(self) -> StreamQuota:
        return self._cluster.streams

    async def start(self, local: LocalRuns) -> None:
        await self._timed("start", self._cluster.start(_Fencing(local, self._lost)))

    async def stop(self) -> None:
        await self._cluster.stop()

    async def request_cancel(self, run_id: str) -> None:
        await self._timed("request_cancel", self._cluster.request_cancel(run_id))

    def following(self, run_id: str, present: bool) -> None:
        self._cluster.following(run_id, present)

    def abort_unless_followed(self, run: ClusterRun) -> None:
        self._cluster.abort_unless_followed(run)

    async def check(self) -> None:
        await self._timed("check", self._cluster.check())

    async def take_turn(self, task: str, period_s: float) -> bool:
        return await self._timed("take_turn", self._cluster.take_turn(task, period_s))

    async def _timed(self, operation: str, call: Awaitable[_T]) -> _T:
        started = time.perf_counter()
        try:
            return await call
        except Exception:
            self._m.store_errors.labels("cluster", operation).inc()
            raise
        finally:
            self._m.store_latency.labels("cluster", operation).observe(time.perf_counter() - started)


class _Fencing:
    """The registry's ``LocalRuns`` as the cluster is given it: ``fenced`` is reported to ``lost`` first."""

    def __init__(self, local: LocalRuns, lost: Callable[[str], None]) -> None:
        self._local = local
        self._lost = lost

    def live(self, run_id: str) -> ClusterRun | None:
        return self._local.live(run_id)

    def held_here(self) -> list[str]:
        return self._local.held_here()

    def fenced(self, run_id: str) -> None:
        self._lost(run_id)
        self._local.fenced(run_id)

    async def end_lost_runs(self) -> None:
        await self._local.end_lost_runs()

    def orphaned(self) -> Sequence[ClusterRun]:
        return self._local.orphaned()

    def start_grace(self, run_id: str) -> None:
        self._local.start_grace(run_id)

    def followers(self, run_id: str) -> int:
        return self._local.followers(run_id)

    def notify_followers(self, run_id: str, seq: int) -> None:
        self._local.notify_followers(run_id, seq)
