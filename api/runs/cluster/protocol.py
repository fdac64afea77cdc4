"""The seam between this instance's runs and the other instances, when the stores are shared.

``Cluster`` is what the registry asks of the others (``RedisCluster``); ``LocalRuns`` is what the cluster asks
of the runs executing or followed here, handed to it as it starts. With embedded stores the registry has no
cluster: every run that executes at all executes here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.cluster.quotas import StreamQuota

__all__ = ("Cluster", "ClusterRun", "LocalRuns")


class ClusterRun(Protocol):
    """A run executing on this instance, as the cluster sees it."""

    @property
    def run_id(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def settled(self) -> bool: ...

    def abort(self, reason: str) -> None: ...


class LocalRuns(Protocol):
    """The runs of this instance, as the cluster asks after them."""

    def live(self, run_id: str) -> ClusterRun | None:
        """The run when it executes here."""
        ...

    def held_here(self) -> list[str]:
        """Runs this instance writes (their leases are renewed)."""
        ...

    def fenced(self, run_id: str) -> None:
        """Another instance took the run over: stop it here without writing anything more."""
        ...

    async def end_lost_runs(self) -> None:
        """End the runs recorded as running whose executor is gone."""
        ...

    def orphaned(self) -> Sequence[ClusterRun]:
        """Running runs here that nobody here follows and that wait for no grace timer."""
        ...

    def start_grace(self, run_id: str) -> None:
        """Abort the run unless a follower comes within the disconnect grace."""
        ...

    def followers(self, run_id: str) -> int:
        """How many streams (and JSON callers) here follow the run."""
        ...

    def notify_followers(self, run_id: str, seq: int) -> None:
        """Another instance committed the run's events up to ``seq``: wake its followers here."""
        ...


class Cluster(Protocol):
    @property
    def streams(self) -> StreamQuota:
        """Open event streams per subject, counted across the instances."""
        ...

    async def start(self, local: LocalRuns) -> None:
        """Start renewing this instance's leases, ending lost runs, and listening to the others."""
        ...

    async def stop(self) -> None: ...

    async def request_cancel(self, run_id: str) -> None:
        """Record a cancel for a run another instance executes; that instance ends it."""
        ...

    def following(self, run_id: str, present: bool) -> None:
        """Streams here started (``present``) or stopped following a run that does not execute here."""
        ...

    def abort_unless_followed(self, run: ClusterRun) -> None:
        """The grace period of a run here is over: abort it unless streams elsewhere follow it."""
        ...

    async def check(self) -> None:
        """Raise unless the shared stores answer now."""
        ...

    async def take_turn(self, task: str, period_s: float) -> bool:
        """Whether this instance does ``task`` (the background purge) now: one instance per ``period_s``."""
        ...
