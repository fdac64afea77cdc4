"""pass@k and pass^k over a run's epochs, for every k, and which cases are flaky.

With n epochs of a case and c passes, pass@k = 1 - C(n - c, k) / C(n, k) is the chance that at least one of
k epochs drawn without replacement passed (the unbiased estimator of Chen et al., 2021: what a user who may
retry k times sees) and pass^k = C(c, k) / C(n, k) the chance that all k did (tau-bench's: what a user who
needs it right k times in a row sees). Both are averaged over cases, each case weighing the same, with the
interval of the same bootstrap over whole cases as every other metric (``agent.evaluation.statistics``).
At k = 1 both are the case pass rate; pass@k only rises with k and pass^k only falls, and the gap between
them is how much the epochs disagree.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.statistics import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Estimate,
    cluster_bootstrap,
    pass_at_k,
    pass_hat_k,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.summary import CaseScores

__all__ = ("PassK", "pass_k_summary")


class PassK(msgspec.Struct, frozen=True, kw_only=True):
    """The curves of pass@k and pass^k over cases, and the flaky cases, as ``report.json``'s ``pass_k``."""

    k: int
    """The largest k measured: the fewest epochs any case ran (every epoch, unless a resume left one out)."""
    pass_at: dict[int, Estimate]
    """k → pass@k averaged over cases, for k from 1 to ``k``."""
    pass_hat: dict[int, Estimate]
    """k → pass^k averaged over cases."""
    flaky_rate: Estimate
    """The share of cases that both passed and failed across their epochs."""
    flaky_cases: list[str]
    """Their ids, in the report's order."""


def pass_k_summary(
    cases: Sequence[CaseScores], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> PassK | None:
    """The curves over ``cases`` (``None`` when no case ran), each value with its clustered bootstrap."""
    ran = [case for case in cases if case.epochs > 0]
    if not ran:
        return None
    largest = min(case.epochs for case in ran)

    def statistic(sample: Sequence[Sequence[CaseScores]]) -> dict[str, float | None]:
        drawn = [group[0] for group in sample]
        values: dict[str, float | None] = {}
        for k in range(1, largest + 1):
            values[f"pass@{k}"] = _mean([pass_at_k(c.epochs, c.epochs_passed, k) for c in drawn])
            values[f"pass^{k}"] = _mean([pass_hat_k(c.epochs, c.epochs_passed, k) for c in drawn])
        values["flaky"] = _mean([float(0 < c.epochs_passed < c.epochs) for c in drawn])
        return values

    estimates = cluster_bootstrap([[case] for case in ran], statistic, resamples=resamples, seed=seed)
    return PassK(
        k=largest,
        pass_at={k: estimates[f"pass@{k}"] for k in range(1, largest + 1)},
        pass_hat={k: estimates[f"pass^{k}"] for k in range(1, largest + 1)},
        flaky_rate=estimates["flaky"],
        flaky_cases=[case.id for case in ran if 0 < case.epochs_passed < case.epochs],
    )


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 6)
