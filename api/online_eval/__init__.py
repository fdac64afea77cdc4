"""Online evaluation: finished production runs scored in the background (``evaluator``), configured by
``HARNESS_ONLINE_EVAL_*`` (``settings``); the scores go to the score store (``agent.evaluation.online_store``), to
/metrics and to ``harness eval online`` (ADR 48)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agent.evaluation import create_judge, open_online_scores
from api.online_eval.evaluator import SETTLE_S, TURN_MARGIN, FinishedRunLog, OnlineEvaluator
from api.online_eval.settings import OnlineEvalSettings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from agent import AgentConfig, Clock
    from agent.evaluation import OnlineScore
    from api.runs.cluster.protocol import Cluster

__all__ = ("SETTLE_S", "TURN_MARGIN", "FinishedRunLog", "OnlineEvalSettings", "OnlineEvaluator", "online_evaluation")


@asynccontextmanager
async def online_evaluation(
    settings: OnlineEvalSettings,
    config: AgentConfig,
    *,
    database: Any,
    log: FinishedRunLog,
    cluster: Cluster | None,
    clock: Clock,
    observe: Callable[[OnlineScore], None],
) -> AsyncIterator[OnlineEvaluator | None]:
    """The loop running while inside, when ``settings`` turn it on (else nothing is opened): its scores in the
    stores of ``config`` (``database``: the shared stores' PostgreSQL pool), and the judge of ``settings`` made
    from ``config``'s provider settings (a judge that cannot be made stops the start, as ``harness eval``)."""
    if not settings.enabled:
        yield None
        return
    judge = create_judge(settings.judge, config) if settings.judge is not None else None
    try:
        async with open_online_scores(config, database) as store:
            evaluator = OnlineEvaluator(
                log, store, settings, clock=clock, cluster=cluster, observe=observe, judge=judge
            )
            evaluator.start()
            try:
                yield evaluator
            finally:
                await evaluator.stop()
    finally:
        if judge is not None:
            await judge.aclose()
