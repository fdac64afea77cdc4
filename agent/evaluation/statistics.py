"""Every metric with its standard error and a 95% interval: a bootstrap that resamples whole cases.

A case run for several epochs gives correlated samples (the same question, the same expectations), so the
resampling unit is the case (a cluster), never the single sample: drawing cases with replacement and
recomputing the metric on each draw gives the spread a new set of cases like these would show. The draws
come from a ``random.Random(seed)``, so a report is reproducible to the digit.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import TYPE_CHECKING, TypeVar

import msgspec

from agent.evaluation.metrics import percentile

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = (
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "REDUCERS",
    "Estimate",
    "cluster_bootstrap",
    "mean_of_case_means",
    "pass_at_k",
    "pass_curve",
    "pass_hat_k",
    "reduce_passes",
)

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20_261_202
REDUCERS = ("mean", "pass_at_k", "pass_hat_k", "majority")
"""How a case's epochs become one figure: their mean, any passed (pass@k), all passed (pass^k), most passed."""

T = TypeVar("T")


class Estimate(msgspec.Struct, frozen=True, kw_only=True):
    """One metric over the run, and how much it would move over another set of cases like these."""

    value: float | None
    """The metric on every case and epoch; ``None`` when nothing was measured."""
    stderr: float | None
    """The standard deviation of the metric over the bootstrap draws (``None`` when not measured)."""
    ci95: tuple[float, float] | None
    """The 2.5th and 97.5th percentiles of the bootstrap draws."""
    n: int
    """Cases (clusters) the metric was measured on."""


def cluster_bootstrap(
    clusters: Sequence[Sequence[T]],
    statistic: Callable[[Sequence[Sequence[T]]], Mapping[str, float | None]],
    *,
    counts: Mapping[str, int] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Estimate]:
    """``statistic`` on ``clusters`` (one list of samples per case), each metric with the spread of
    ``statistic`` over ``resamples`` draws of as many clusters with replacement. ``counts`` gives a metric's
    ``n`` (default: every cluster)."""
    if resamples < 2:
        raise ValueError(f"resamples must be at least 2, got {resamples}")
    observed = dict(statistic(clusters))
    draws: dict[str, list[float]] = {name: [] for name in observed}
    rng = random.Random(seed)
    size = len(clusters)
    for _ in range(resamples if size else 0):
        sample = [clusters[rng.randrange(size)] for _ in range(size)]
        for name, value in statistic(sample).items():
            if value is not None and name in draws:
                draws[name].append(value)
    estimates: dict[str, Estimate] = {}
    for name, value in observed.items():
        n = (counts or {}).get(name, size)
        spread = draws[name]
        if value is None or len(spread) < 2:
            estimates[name] = Estimate(value=value, stderr=None, ci95=None, n=n)
            continue
        estimates[name] = Estimate(
            value=value,
            stderr=round(statistics.stdev(spread), 6),
            ci95=(round(percentile(spread, 0.025), 6), round(percentile(spread, 0.975), 6)),
            n=n,
        )
    return estimates


def mean_of_case_means(scores: Sequence[Sequence[float | None]]) -> float | None:
    """The mean over cases of each case's mean over its epochs; epochs and cases with no value are left out."""
    means = [statistics.fmean(values) for case in scores if (values := [v for v in case if v is not None])]
    return round(statistics.fmean(means), 6) if means else None


def pass_at_k(samples: int, passed: int, k: int) -> float:
    """The chance that at least one of ``k`` epochs drawn from ``samples`` passes, ``passed`` of them having
    passed (the unbiased estimator of Chen et al., 2021); with ``k == samples``: whether any passed."""
    if not 0 < k <= samples:
        raise ValueError(f"k must be within 1..{samples}, got {k}")
    if samples - passed < k:
        return 1.0
    return 1.0 - math.comb(samples - passed, k) / math.comb(samples, k)


def pass_hat_k(samples: int, passed: int, k: int) -> float:
    """The chance that all ``k`` epochs drawn from ``samples`` pass, ``passed`` of them having passed:
    C(passed, k) / C(samples, k) (tau-bench's pass^k); with ``k == samples``: whether every one passed."""
    if not 0 < k <= samples:
        raise ValueError(f"k must be within 1..{samples}, got {k}")
    return math.comb(passed, k) / math.comb(samples, k)


def pass_curve(samples: int, passed: int) -> tuple[dict[int, float], dict[int, float]]:
    """pass@k and pass^k of one case for every k from 1 to ``samples``, rounded as the report rounds."""
    ks = range(1, samples + 1)
    return (
        {k: round(pass_at_k(samples, passed, k), 6) for k in ks},
        {k: round(pass_hat_k(samples, passed, k), 6) for k in ks},
    )


def reduce_passes(cases: Sequence[Sequence[bool]]) -> dict[str, float | None]:
    """The case-level reducers of pass/fail epochs, each a rate over cases: ``case_pass_rate`` (the mean),
    ``pass_at_k`` (any of the k epochs passed), ``pass_hat_k`` (all k passed), ``majority_pass_rate``
    (more than half passed)."""
    ran = [case for case in cases if case]
    if not ran:
        return dict.fromkeys(("case_pass_rate", "pass_at_k", "pass_hat_k", "majority_pass_rate"))
    count = len(ran)
    return {
        "case_pass_rate": round(sum(sum(c) / len(c) for c in ran) / count, 6),
        "pass_at_k": round(sum(pass_at_k(len(c), sum(c), len(c)) for c in ran) / count, 6),
        "pass_hat_k": round(sum(1.0 for c in ran if all(c)) / count, 6),
        "majority_pass_rate": round(sum(1.0 for c in ran if sum(c) * 2 > len(c)) / count, 6),
    }
