"""What the registry asks of the other instances when the stores are shared (``RedisCluster``).

With embedded stores the registry has no cluster: every run that executes at all executes here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.registry import RunRegistry
    from api.runs.run import Run

__all__ = ("Cluster",)


class Cluster(Protocol):
    @property
    def streams(self) -> StreamQuota:
        """Open event streams per subject, counted across the instances."""
        ...

    async def start(self, registry: RunRegistry) -> None:
        """Start renewing this instance's leases, ending lost runs, and listening to the others."""
        ...

    async def stop(self) -> None: ...

    async def request_cancel(self, run_id: str) -> None:
        """Record a cancel for a run another instance executes; that instance ends it."""
        ...

    def following(self, run_id: str, present: bool) -> None:
        """Streams here started (``present``) or stopped following a run that does not execute here."""
        ...

    def abort_unless_followed(self, run: Run) -> None:
        """The grace period of a run here is over: abort it unless streams elsewhere follow it."""
        ...

    async def check(self) -> None:
        """Raise unless the shared stores answer now."""
        ...

    async def take_turn(self, task: str, period_s: float) -> bool:
        """Whether this instance does ``task`` (the background purge) now: one instance per ``period_s``."""
        ...
