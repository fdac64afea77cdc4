"""Paired significance tests: did the candidate change a metric, on the same cases, beyond chance?

Both runs score the same cases, so each case is compared with itself: what varies between two runs of one
case is the noise, what varies between cases is not. Pass/fail outcomes get McNemar's exact test (only the
cases that flipped carry information: under no change, a flip is as likely either way, a fair coin);
any other per-case value gets a sign-flip permutation test on the paired differences (under no change,
each difference is as likely to be positive as negative). The effect is the mean paired difference
(candidate minus baseline, in the metric's unit) with a 95% paired bootstrap interval over cases.

Two windows of production runs (``harness eval online --baseline-since``) share no case to pair: their pass/fail
outcomes get Fisher's exact test, McNemar's unpaired counterpart (``unpaired_test``).

Every resampling draws from ``random.Random(seed)``: the same inputs give the same p-value and interval. Resampling
pass/fail outcomes with replacement only counts passes, so the unpaired bootstrap draws each side's count of passes
from its binomial distribution (one uniform a side) rather than every outcome: the same distribution, in a time that
does not grow with the window.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from itertools import accumulate, product
from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = (
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "PairedTest",
    "TestName",
    "UnpairedTest",
    "fisher_exact",
    "mcnemar_exact",
    "paired_bootstrap_interval",
    "paired_test",
    "sign_flip_permutation",
    "unpaired_test",
)

TestName = Literal["mcnemar_exact", "paired_permutation", "none"]
DEFAULT_SEED = 20_27
DEFAULT_RESAMPLES = 4000
_EXACT_FLIPS = 14
"""Up to this many non-zero differences the permutation distribution is enumerated whole (2^14 sign sets)."""
_TOLERANCE = 1e-12


class PairedTest(msgspec.Struct, frozen=True, kw_only=True):
    test: TestName
    """``mcnemar_exact`` for pass/fail pairs, ``paired_permutation`` for scores, ``none`` with nothing paired."""
    n: int
    """Cases measured in both runs."""
    effect: float | None
    """Mean of candidate minus baseline over the paired cases, in the metric's unit."""
    ci95: tuple[float, float] | None
    """95% paired bootstrap interval of ``effect`` (percentile, cases resampled with replacement)."""
    p_value: float | None
    """Two-sided: how often a difference at least this large would appear if nothing had changed."""
    worse: int = 0
    """Pass/fail: cases that passed in the baseline and fail in the candidate."""
    better: int = 0
    """Pass/fail: cases that failed in the baseline and pass in the candidate."""


class UnpairedTest(msgspec.Struct, frozen=True, kw_only=True):
    """Two samples of different runs (two windows of production runs): nothing pairs them."""

    test: Literal["fisher_exact", "none"]
    """``fisher_exact`` for two sets of pass/fail outcomes; ``none`` when either side measured nothing."""
    n_baseline: int
    n_candidate: int
    effect: float | None
    """Candidate's pass rate minus the baseline's."""
    ci95: tuple[float, float] | None
    """95% bootstrap interval of ``effect`` (each side resampled on its own)."""
    p_value: float | None
    """Two-sided: how often tables at most as likely as this one appear with the same margins."""


def fisher_exact(baseline_passed: int, baseline_n: int, candidate_passed: int, candidate_n: int) -> float:
    """Two-sided Fisher's exact p-value of two pass counts: the unpaired counterpart of McNemar's exact test, the
    sum of the hypergeometric probabilities of every table with these margins no likelier than the observed one."""
    if not (0 <= baseline_passed <= baseline_n and 0 <= candidate_passed <= candidate_n):
        raise ValueError("pass counts are within 0 and their sample's size")
    passed = baseline_passed + candidate_passed
    total = baseline_n + candidate_n
    low, high = max(0, passed - candidate_n), min(passed, baseline_n)

    def log_p(k: int) -> float:
        return _log_comb(baseline_n, k) + _log_comb(candidate_n, passed - k) - _log_comb(total, passed)

    observed = log_p(baseline_passed)
    tail = sum(math.exp(lp) for k in range(low, high + 1) if (lp := log_p(k)) <= observed + 1e-7)
    return min(1.0, tail)


def unpaired_test(
    baseline: Sequence[bool], candidate: Sequence[bool], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> UnpairedTest:
    """Fisher's exact test of two windows' pass/fail outcomes, with the difference of their rates."""
    if not baseline or not candidate:
        return UnpairedTest(
            test="none", n_baseline=len(baseline), n_candidate=len(candidate), effect=None, ci95=None, p_value=None
        )
    base_rate, cand_rate = sum(baseline) / len(baseline), sum(candidate) / len(candidate)
    rng = random.Random(seed)
    cand_passes, base_passes = _Binomial(len(candidate), cand_rate), _Binomial(len(baseline), base_rate)
    draws = sorted(
        cand_passes.draw(rng.random()) / len(candidate) - base_passes.draw(rng.random()) / len(baseline)
        for _ in range(resamples)
    )
    p_value = fisher_exact(sum(baseline), len(baseline), sum(candidate), len(candidate))
    return UnpairedTest(
        test="fisher_exact",
        n_baseline=len(baseline),
        n_candidate=len(candidate),
        effect=round(cand_rate - base_rate, 6),
        ci95=(round(_quantile(draws, 0.025), 6), round(_quantile(draws, 0.975), 6)),
        p_value=round(p_value, 6),
    )


class _Binomial:
    """Binomial(n, p) drawn from one uniform by inverting its CDF: the passes of n outcomes resampled with
    replacement from a sample whose pass rate is p, in the time of a bisection rather than of n draws. The table
    spans the mean plus or minus 12 standard deviations (the mass outside is below 1e-30)."""

    def __init__(self, n: int, p: float) -> None:
        if p <= 0.0 or p >= 1.0:
            self.low, self.cdf = round(n * p), [1.0]
            return
        spread = 12 * math.sqrt(n * p * (1 - p)) + 1
        self.low, high = max(0, math.floor(n * p - spread)), min(n, math.ceil(n * p + spread))
        logs = [_log_comb(n, k) + k * math.log(p) + (n - k) * math.log1p(-p) for k in range(self.low, high + 1)]
        peak = max(logs)
        cumulative = list(accumulate(math.exp(log - peak) for log in logs))
        self.cdf = [c / cumulative[-1] for c in cumulative]

    def draw(self, uniform: float) -> int:
        """The count whose CDF first exceeds ``uniform`` (in [0, 1))."""
        return self.low + min(bisect_right(self.cdf, uniform), len(self.cdf) - 1)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value: the binomial(worse + better, 1/2) tail of the rarer flip, doubled."""
    if worse < 0 or better < 0:
        raise ValueError("flip counts cannot be negative")
    flips = worse + better
    if flips == 0:
        return 1.0
    tail: float = sum(math.comb(flips, k) for k in range(min(worse, better) + 1)) / 2**flips
    return min(1.0, 2 * tail)


def sign_flip_permutation(
    differences: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> float:
    """Two-sided p-value of the mean paired difference under random signs (exact when few are non-zero).

    The Monte Carlo estimate counts the observed assignment among the resamples ((hits + 1) / (R + 1)), so
    it is never 0 and never anti-conservative.
    """
    nonzero = [d for d in differences if abs(d) > _TOLERANCE]
    if not nonzero:
        return 1.0
    observed = abs(sum(nonzero))
    if len(nonzero) <= _EXACT_FLIPS:
        hits = sum(
            1
            for signs in product((1, -1), repeat=len(nonzero))
            if abs(sum(s * d for s, d in zip(signs, nonzero, strict=True))) >= observed - _TOLERANCE
        )
        return float(hits / 2 ** len(nonzero))
    rng = random.Random(seed)
    hits = 0
    for _ in range(resamples):
        bits = rng.getrandbits(len(nonzero))
        total = sum(d if bits >> i & 1 else -d for i, d in enumerate(nonzero))
        hits += abs(total) >= observed - _TOLERANCE
    return (hits + 1) / (resamples + 1)


def paired_bootstrap_interval(
    differences: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    """95% percentile interval of the mean difference, cases drawn with replacement."""
    if not differences:
        raise ValueError("an interval of no differences")
    if all(abs(d - differences[0]) <= _TOLERANCE for d in differences):
        return (round(differences[0], 6), round(differences[0], 6))
    rng = random.Random(seed)
    n = len(differences)
    means = sorted(sum(rng.choices(differences, k=n)) / n for _ in range(resamples))
    return (round(_quantile(means, 0.025), 6), round(_quantile(means, 0.975), 6))


def paired_test(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    pass_fail: bool = True,
) -> PairedTest:
    """The fitting test for one metric's per-case values, paired by position.

    Values that are all 0 or 1 on both sides are pass/fail: McNemar's exact test (unless ``pass_fail`` is
    False: a total that happens to be 0 is not an outcome). Anything else (a pass rate over epochs, a
    reciprocal rank, a latency) gets the permutation test.
    """
    if len(baseline) != len(candidate):
        raise ValueError(f"paired values differ in length: {len(baseline)} and {len(candidate)}")
    if not baseline:
        return PairedTest(test="none", n=0, effect=None, ci95=None, p_value=None)
    differences = [c - b for b, c in zip(baseline, candidate, strict=True)]
    effect = round(sum(differences) / len(differences), 6)
    interval = paired_bootstrap_interval(differences, resamples=resamples, seed=seed)
    if pass_fail and all(v in (0.0, 1.0) for v in (*baseline, *candidate)):
        worse = sum(1 for b, c in zip(baseline, candidate, strict=True) if b == 1.0 and c == 0.0)
        better = sum(1 for b, c in zip(baseline, candidate, strict=True) if b == 0.0 and c == 1.0)
        p_value = mcnemar_exact(worse, better)
        return PairedTest(
            test="mcnemar_exact",
            n=len(differences),
            effect=effect,
            ci95=interval,
            p_value=round(p_value, 6),
            worse=worse,
            better=better,
        )
    p_value = sign_flip_permutation(differences, resamples=resamples, seed=seed)
    return PairedTest(
        test="paired_permutation", n=len(differences), effect=effect, ci95=interval, p_value=round(p_value, 6)
    )


def _quantile(ordered: Sequence[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
