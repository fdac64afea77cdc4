"""The paired tests against hand-computed values, and a simulated A/A experiment: noise is flagged at most alpha.

The simulation tests the statistics alone, on 200 pairs of 126 cases in a fraction of a second; the real
experiment (the harness end to end, the stub sampling with two seeds) is ``test_sampling_experiments.py``.
"""

from __future__ import annotations

import math
import random

import pytest

from agent.evaluation.significance import (
    mcnemar_exact,
    paired_bootstrap_interval,
    paired_test,
    sign_flip_permutation,
)
from tests.agent.evaluation.conftest import false_flag_margin


@pytest.mark.parametrize(
    ("worse", "better", "p"),
    [
        (0, 0, 1.0),
        (1, 0, 1.0),
        (5, 0, 2 / 32),  # five flips all one way: 2 * (1/2)^5
        (6, 0, 2 / 64),
        (7, 2, 2 * (1 + 9 + 36) / 512),  # 2 * P(X <= 2), X ~ Binomial(9, 1/2)
        (10, 10, 1.0),
    ],
)
def test_mcnemar_exact_is_the_doubled_binomial_tail_of_the_flips(worse: int, better: int, p: float) -> None:
    assert mcnemar_exact(worse, better) == pytest.approx(p)
    assert mcnemar_exact(better, worse) == pytest.approx(p), "two-sided: symmetric in the flips"


def test_the_permutation_test_is_exact_for_few_differences() -> None:
    # signs of (1, 2, 3): of the 8 assignments, |sum| >= 6 only for all + and all -
    assert sign_flip_permutation([1.0, 2.0, 3.0, 0.0, 0.0]) == pytest.approx(2 / 8)
    assert sign_flip_permutation([0.0, 0.0]) == 1.0


def test_the_monte_carlo_permutation_is_deterministic_and_never_zero() -> None:
    differences = [1.0 + i % 5 for i in range(40)]

    first = sign_flip_permutation(differences, resamples=2000, seed=1)

    assert first == sign_flip_permutation(differences, resamples=2000, seed=1)
    assert first == pytest.approx(1 / 2001), "every sign flipped the same way: only the observed one is as extreme"


def test_the_bootstrap_interval_holds_the_mean_and_is_reproducible() -> None:
    rng = random.Random(7)
    differences = [rng.gauss(0.5, 1.0) for _ in range(200)]

    low, high = paired_bootstrap_interval(differences, seed=3)

    mean = sum(differences) / len(differences)
    standard_error = math.sqrt(sum((d - mean) ** 2 for d in differences) / (len(differences) - 1) / len(differences))
    assert low < mean < high
    assert high - low == pytest.approx(2 * 1.96 * standard_error, rel=0.15)
    assert (low, high) == paired_bootstrap_interval(differences, seed=3)


def test_pass_fail_values_get_mcnemar_and_others_the_permutation_test() -> None:
    assert paired_test([1, 1, 0, 1], [1, 0, 0, 1]).test == "mcnemar_exact"
    assert paired_test([1, 1, 0, 1], [1, 0.5, 0, 1]).test == "paired_permutation"
    assert paired_test([0, 0], [0, 1], pass_fail=False).test == "paired_permutation"
    assert paired_test([], []).test == "none"
    with pytest.raises(ValueError, match="differ in length"):
        paired_test([1.0], [])


ALPHA = 0.05
REPETITIONS = 200


def a_case_rates(rng: random.Random, cases: int) -> list[float]:
    """Cases of an agent with one true pass rate each: most always pass, some never, some are a coin."""
    return [rng.choice((1.0, 1.0, 1.0, 0.97, 0.9, 0.6, 0.5, 0.2, 0.0)) for _ in range(cases)]


def test_an_a_a_comparison_of_pass_fail_is_flagged_at_most_alpha() -> None:
    """Same agent, two runs: each case passes with its own fixed probability in both, drawn independently.

    Run-to-run noise is simulated as what a sampled model gives: per-case Bernoulli outcomes from one true
    rate. Over 200 such A/A pairs, McNemar flags a difference (p < alpha) in no more than alpha of them and a
    regression in no more than half of that, within the binomial margin.
    """
    rng = random.Random(2027)
    false_regressions = false_flags = 0
    for _ in range(REPETITIONS):
        rates = a_case_rates(rng, 126)
        baseline = [1.0 if rng.random() < rate else 0.0 for rate in rates]
        candidate = [1.0 if rng.random() < rate else 0.0 for rate in rates]
        result = paired_test(baseline, candidate, resamples=500)
        assert result.p_value is not None
        assert result.effect is not None
        flagged = result.p_value < ALPHA
        false_flags += flagged
        false_regressions += flagged and result.effect < 0

    assert false_flags <= false_flag_margin(REPETITIONS, ALPHA)
    assert false_regressions <= false_flag_margin(REPETITIONS, ALPHA / 2)


def test_an_a_a_comparison_of_scores_over_epochs_is_flagged_at_most_alpha() -> None:
    """Epochs: each case's pass rate over 3 samples, and a noisy score, compared with the permutation test."""
    rng = random.Random(4711)
    false_flags = 0
    for _ in range(REPETITIONS):
        rates = a_case_rates(rng, 60)
        baseline = [sum(rng.random() < rate for _ in range(3)) / 3 for rate in rates]
        candidate = [sum(rng.random() < rate for _ in range(3)) / 3 for rate in rates]
        result = paired_test(baseline, candidate, resamples=500, seed=rng.randrange(2**31))
        assert result.p_value is not None
        false_flags += result.p_value < ALPHA

    assert false_flags <= false_flag_margin(REPETITIONS, ALPHA)


def test_a_real_drop_is_caught_most_of_the_time() -> None:
    """The other side of the A/A: a candidate that loses 20 points of pass rate is flagged almost always."""
    rng = random.Random(99)
    caught = 0
    for _ in range(50):
        rates = a_case_rates(rng, 126)
        baseline = [1.0 if rng.random() < rate else 0.0 for rate in rates]
        candidate = [1.0 if rng.random() < max(0.0, rate - 0.2) else 0.0 for rate in rates]
        result = paired_test(baseline, candidate, resamples=200)
        assert result.p_value is not None
        assert result.effect is not None
        caught += result.p_value < ALPHA and result.effect < 0

    assert caught >= 40
