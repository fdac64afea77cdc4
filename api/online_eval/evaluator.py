"""The background loop that scores finished production runs (``agent.evaluation.online``), off the request path.

Every ``interval_s`` one instance (with shared stores, the one that takes the cluster's turn, as retention and the
thread TTL do) reads the finished runs past the score store's cursor, oldest first, leaving the last few seconds'
(``SETTLE_S``: a run's record reaches the PostgreSQL archive a moment after Redis, and instances' clocks differ a
little). A run the sampling picks (``sampled``: its id's hash, so every instance picks the same) is read from the
event log, scored, and its scores kept in one transaction with its "scored" row: a run found scored is not scored
again, so an instance that dies mid-way loses nothing (the cursor moves only after a batch) and the next one scores
no run twice. A run is never slowed or failed by this: it has finished, and a scorer that raises skips the run.
With ``HARNESS_RETENTION_DAYS``, the scores of runs that finished before the retention go on the same turn.

A pass lasts no longer than its turn (``interval_s``, less ``TURN_MARGIN``): once another instance could take the
turn, it would read the same runs past the same cursor and pay the judge for them again (kept once, but called
twice). So a pass stops before a run when less time is left than its slowest run so far took, advancing the cursor
to where it got, and a run's scoring is cut at the turn's end: that run is left for the next pass, or skipped (as a
scorer that raises) if it was the pass's first, since it could not be scored within a whole turn.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from typing import TYPE_CHECKING, Protocol

import msgspec

from agent import format_timestamp
from agent.evaluation import CapturedRun, sampled, score_run
from agent.stores import is_store_failure
from api.runs.retention import cutoff
from api.stopping import stop_task

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent import Clock
    from agent.evaluation import Grader, OnlineScore, OnlineScoreStore
    from api.online_eval.settings import OnlineEvalSettings
    from api.runs.cluster.protocol import Cluster
    from api.runs.log.records import RunRecord, StoredEvent

__all__ = ("SETTLE_S", "TURN_MARGIN", "FinishedRunLog", "OnlineEvaluator")

logger = logging.getLogger(__name__)

SETTLE_S = 2.0
"""Runs that finished less than this long ago wait for the next pass."""
TURN_MARGIN = 0.1
"""The share of the turn a pass leaves unused: for the writes after the last run, and instances' clocks."""
_TURN = "online-eval"


class FinishedRunLog(Protocol):
    """What the loop reads of the event log."""

    async def finished_runs(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]: ...

    async def load_run(self, run_id: str) -> RunRecord | None: ...

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]: ...


class OnlineEvaluator:
    def __init__(
        self,
        log: FinishedRunLog,
        store: OnlineScoreStore,
        settings: OnlineEvalSettings,
        *,
        clock: Clock,
        cluster: Cluster | None,
        observe: Callable[[OnlineScore], None],
        judge: Grader | None = None,
    ) -> None:
        self._log = log
        self._store = store
        self._settings = settings
        self._clock = clock
        self._cluster = cluster
        self._observe = observe
        """Called once per kept score (the /metrics histogram and pass counter)."""
        self._judge = judge
        self._name = f"{socket.gethostname()}:{os.getpid()}"
        """Who scored a run, as its "scored" row says."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._forever(), name="online-eval")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)

    async def score_once(self) -> int:
        """Score the finished runs past the cursor, if it is this instance's turn; how many were scored here."""
        settings = self._settings
        # read before the turn is taken, so the pass's end is never later than the turn's
        ends_ns = self._clock.now_ns() + round(settings.interval_s * (1 - TURN_MARGIN) * 1e9)
        if self._cluster is not None and not await self._cluster.take_turn(_TURN, settings.interval_s):
            return 0
        before = cutoff(self._clock.now_ns(), SETTLE_S)
        start = position = await self._store.cursor()
        runs = await self._log.finished_runs(position, before, settings.batch)
        scored = 0
        slowest_ns = 0
        first = True
        for changed_at, run_id in runs:
            if sampled(run_id, settings.scoring.rate):
                began_ns = self._clock.now_ns()
                if ends_ns - began_ns <= slowest_ns:
                    break  # it might outlast the turn: the next pass starts with it
                outcome = await self._score(run_id, changed_at, within_s=(ends_ns - began_ns) / 1e9)
                if outcome is None:
                    if not first:
                        break
                    logger.warning(
                        "online evaluation could not score run %s within a turn (%g s, HARNESS_ONLINE_EVAL_INTERVAL_S);"
                        " it is left unscored",
                        run_id,
                        settings.interval_s,
                    )
                scored += outcome or 0
                slowest_ns = max(slowest_ns, self._clock.now_ns() - began_ns)
                first = False
            position = (changed_at, run_id)
        if position != start:
            await self._store.advance(position)
        if settings.retention_s is not None:
            purged = await self._store.purge(cutoff(self._clock.now_ns(), settings.retention_s))
            if purged:
                logger.info("online evaluation purged the scores of %d runs past the retention", purged)
        return scored

    async def _score(self, run_id: str, finished_at: str, *, within_s: float) -> int | None:
        """1 when the run's scores were kept here, 0 when not; None when its scoring was cut after ``within_s``
        (the turn's end), nothing kept."""
        run = await self._load(run_id)
        if run is None:
            return 0  # erased since it was listed
        bound = asyncio.timeout(within_s)
        try:
            async with bound:
                scores = await score_run(run, self._settings.scoring, at=finished_at, judge=self._judge)
        except Exception:
            if bound.expired():
                return None
            logger.exception("online evaluation could not score run %s; it is left unscored", run_id)
            return 0
        kept = await self._store.record(
            run_id, scores, scored_by=self._name, scored_at=format_timestamp(self._clock.now_ns())
        )
        if not kept:
            return 0  # another instance scored it (its turn outlived its period)
        for score in scores:
            self._observe(score)
        return 1

    async def _load(self, run_id: str) -> CapturedRun | None:
        record = await self._log.load_run(run_id)
        if record is None:
            return None
        events, _ = await self._log.read(run_id, 0)
        return CapturedRun(
            run_id=run_id,
            status=record.snapshot.status,
            owner=record.owner,
            graph_id=record.graph.graph_id if record.graph is not None else None,
            envelopes=[msgspec.json.decode(event.envelope) for event in events],
        )

    async def _forever(self) -> None:
        while True:
            try:
                await self.score_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_store_failure(exc):
                    logger.error("online evaluation could not score: a store is unreachable (%s)", type(exc).__name__)
                else:
                    logger.exception("online evaluation could not score")
            await asyncio.sleep(self._settings.interval_s)
