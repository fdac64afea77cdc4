"""``Metrics``: one app's metrics, its own registry and the seams that feed it, and what a scrape reads."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from litestar.middleware import DefineMiddleware
from prometheus_client import CollectorRegistry, generate_latest

from api.metrics.cluster import MeteredCluster
from api.metrics.http import HttpMetrics
from api.metrics.instruments import Instruments
from api.metrics.log import MeteredLog
from api.metrics.turns import TurnWatch

if TYPE_CHECKING:
    from agent import Clock
    from agent.evaluation import OnlineScore
    from api.runs.cluster.protocol import Cluster
    from api.runs.log.protocols import EventLog
    from api.runs.registry import RunRegistry

__all__ = ("Metrics",)

logger = logging.getLogger(__name__)

_STORE_READ_S = 5.0
"""How long a scrape waits for the store's paused runs before it answers with the figures it had."""


class Metrics:
    def __init__(self, clock: Clock) -> None:
        self.registry = CollectorRegistry()
        """This app's own: never prometheus-client's global default registry."""
        self.instruments = Instruments(self.registry)
        self._clock = clock
        self._turns = TurnWatch(self.instruments)
        self._log: MeteredLog | None = None
        self._runs: RunRegistry | None = None

    def meter_log(self, log: EventLog, *, store: str) -> EventLog:
        """``log`` with its events, commits, replays and round trips metered; ``store`` names it in labels."""
        self._log = MeteredLog(log, store=store, instruments=self.instruments, turns=self._turns, lost=self._lost)
        return self._log

    def meter_cluster(self, cluster: Cluster | None) -> Cluster | None:
        """``cluster`` with its round trips metered and the leases it finds lost counted."""
        return None if cluster is None else MeteredCluster(cluster, instruments=self.instruments, lost=self._lost)

    def watch(self, runs: RunRegistry) -> None:
        """Read the runs executing on this instance from ``runs`` when scraped."""
        self._runs = runs
        self.instruments.runs_running.set_function(lambda: _running(runs))

    def online_score(self, score: OnlineScore) -> None:
        """One online evaluation score kept (on the instance that scored its run, once)."""
        labels = {"assistant": score.assistant, "scorer": score.scorer}
        self.instruments.online_eval_score.labels(**labels).observe(score.value)
        passed = self.instruments.online_eval_passed.labels(**labels)
        passed.inc(1 if score.passed else 0)

    def middleware(self) -> DefineMiddleware:
        return DefineMiddleware(HttpMetrics, instruments=self.instruments)

    async def scrape(self) -> bytes:
        """The text exposition of every metric, the store's paused runs read now."""
        await self._read_waiting_runs()
        return generate_latest(self.registry)

    async def _read_waiting_runs(self) -> None:
        if self._log is None:
            return
        try:
            waiting = await asyncio.wait_for(self._log.waiting_runs(), _STORE_READ_S)
        except Exception:  # counted as a store error by the metered log; the gauges keep their last figures
            logger.warning("metrics could not read the paused runs", exc_info=True)
            return
        m = self.instruments
        m.runs_waiting.set(len(waiting))
        paused_at = [record.paused_at_ns or 0 for record in waiting if record.snapshot.pending_approval is not None]
        m.approvals_pending.set(len(paused_at))
        oldest_s = (self._clock.now_ns() - min(paused_at)) / 1e9 if paused_at else 0.0
        m.approval_oldest_age.set(max(oldest_s, 0.0))

    def _lost(self, run_id: str) -> None:
        """``run_id`` is being fenced here: counted once, while it is still one of this instance's runs."""
        runs = self._runs
        if runs is not None and runs.live(run_id) is not None:
            self.instruments.leases_lost.inc()
        self._turns.forget(run_id)
        if self._log is not None:
            self._log.forget(run_id)


def _running(runs: RunRegistry) -> float:
    return float(sum(1 for run_id in runs.held_here() if (run := runs.live(run_id)) and run.status == "running"))
