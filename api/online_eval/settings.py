"""How online evaluation is configured: ``HARNESS_ONLINE_EVAL_*`` (README, "Configuration")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import msgspec

from agent import ConfigError, read_float, read_optional_int
from agent.evaluation import JudgeSettings, OnlineScoring

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("OnlineEvalSettings",)


class OnlineEvalSettings(msgspec.Struct, frozen=True, kw_only=True):
    scoring: OnlineScoring = msgspec.field(default_factory=OnlineScoring)
    """The share of runs scored (``HARNESS_ONLINE_EVAL_RATE``, 0 = off) and the latency budget
    (``HARNESS_ONLINE_EVAL_LATENCY_MS``)."""
    interval_s: float = 10.0
    """How often an instance looks for newly finished runs; with shared stores, one instance per interval
    (``HARNESS_ONLINE_EVAL_INTERVAL_S``)."""
    batch: int = 200
    """Finished runs looked at per pass (``HARNESS_ONLINE_EVAL_BATCH``)."""
    retention_s: float | None = None
    """Scores of runs that finished longer ago than this go, as retention purges the runs
    (``HARNESS_RETENTION_DAYS``; unset: kept)."""
    judge: JudgeSettings | None = None
    """The judge's provider and model (``HARNESS_JUDGE_PROVIDER``, ``HARNESS_JUDGE_MODEL``, as ``harness eval``
    reads them) when ``scoring.judge_rubric`` is set."""

    @property
    def enabled(self) -> bool:
        return self.scoring.rate > 0

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, retention_days: float | None = None) -> OnlineEvalSettings:
        """``retention_days``: ``HARNESS_RETENTION_DAYS`` as the service's settings read it."""
        rate = read_float(env, "HARNESS_ONLINE_EVAL_RATE", 0.0)
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"HARNESS_ONLINE_EVAL_RATE must be within 0 and 1 (a share of the runs), got {rate:g}")
        latency_ms = _latency_budget_ms(env)
        interval_s = read_float(env, "HARNESS_ONLINE_EVAL_INTERVAL_S", 10.0)
        if not 0 < interval_s < math.inf:
            raise ConfigError(f"HARNESS_ONLINE_EVAL_INTERVAL_S must be more than 0 seconds, got {interval_s:g}")
        batch = read_optional_int(env, "HARNESS_ONLINE_EVAL_BATCH")
        if batch is not None and batch < 1:
            raise ConfigError(f"HARNESS_ONLINE_EVAL_BATCH must be at least 1, got {batch}")
        rubric = env.get("HARNESS_ONLINE_EVAL_JUDGE_RUBRIC", "").strip() or None
        judge = JudgeSettings.from_env(env) if rubric else None
        if rubric and judge is None:
            raise ConfigError(
                "HARNESS_ONLINE_EVAL_JUDGE_RUBRIC needs a judge: set HARNESS_JUDGE_PROVIDER (and HARNESS_JUDGE_MODEL)"
            )
        scoring = OnlineScoring(rate=rate, latency_budget_ms=latency_ms, judge_rubric=rubric)
        retention_s = None if retention_days is None else retention_days * 86_400
        return cls(scoring=scoring, interval_s=interval_s, batch=batch or 200, retention_s=retention_s, judge=judge)


def _latency_budget_ms(env: Mapping[str, str]) -> float | None:
    """``HARNESS_ONLINE_EVAL_LATENCY_MS``: None when unset; a value that is no number of milliseconds above 0
    (negative, 0, NaN, infinite) is refused, never read as unset."""
    name = "HARNESS_ONLINE_EVAL_LATENCY_MS"
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise ConfigError(f"{name} must be a number of milliseconds above 0, got {raw!r}")
    return value
