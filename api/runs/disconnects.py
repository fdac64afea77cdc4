"""The disconnect policy: a running run whose last follower left goes on for a grace period, then is aborted.

Followers are the streams and JSON callers of a run, here and, with shared stores, on every other instance
(``Cluster.abort_unless_followed`` asks them). A run that nobody follows gets ``disconnect_grace_s`` for a
follower to come (back); then it ends with ``client_disconnected``. A run waiting for a human holds no task
and is never aborted this way.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from api.runs.stream.feed import RunFeed

if TYPE_CHECKING:
    from collections.abc import Mapping

    from api.runs.cluster.protocol import Cluster
    from api.runs.run import Run

__all__ = ("Disconnects",)

_UNCLAIMED_S = 1.0
"""How long a run's first follower (the request that started it) may take to come before the grace starts."""


class Disconnects:
    def __init__(self, live: Mapping[str, Run], *, grace_s: float, cluster: Cluster | None) -> None:
        self._live = live
        self._grace_s = grace_s
        self._cluster = cluster
        self.feed = RunFeed(self._followers_changed)
        """Who follows which run on this instance; its changes drive this policy."""

    def launched(self, run: Run) -> None:
        """``run`` started executing: the request that started it follows it right away; if it never does, its
        client is gone. A detached run (a background run) goes on without anyone."""
        if not run.detached and not self.feed.count(run.run_id):
            delay = max(self._grace_s, _UNCLAIMED_S)
            run.grace_timer = asyncio.get_running_loop().call_later(delay, self._grace_over, run)

    def start_grace(self, run: Run) -> None:
        """Abort the run unless a follower comes within the grace period."""
        if run.grace_timer is not None or run.detached:
            return
        if self._grace_s <= 0 and self._cluster is None:
            run.abort("client_disconnected")
            return
        run.grace_timer = asyncio.get_running_loop().call_later(self._grace_s, self._grace_over, run)

    def orphaned(self) -> list[Run]:
        """Running runs here that nobody here follows and that wait for no grace timer."""
        return [
            run
            for run in self._live.values()
            if run.status == "running"
            and run.grace_timer is None
            and not run.detached
            and not self.feed.count(run.run_id)
        ]

    def _followers_changed(self, run_id: str, count: int) -> None:
        run = self._live.get(run_id)
        if run is not None:
            if count and run.grace_timer is not None:
                run.grace_timer.cancel()
                run.grace_timer = None
            elif not count and run.status == "running":
                self.start_grace(run)
        if self._cluster is not None:
            self._cluster.following(run_id, bool(count))

    def _grace_over(self, run: Run) -> None:
        run.grace_timer = None
        if self.feed.count(run.run_id) or run.status != "running":
            return
        if self._cluster is None:
            run.abort("client_disconnected")
        else:
            self._cluster.abort_unless_followed(run)
