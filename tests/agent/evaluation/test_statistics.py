"""Standard errors and 95% intervals by a bootstrap clustered by case, and the reducers of epochs."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

import pytest

from agent.evaluation.statistics import cluster_bootstrap, mean_of_case_means, pass_at_k, reduce_passes

if TYPE_CHECKING:
    from collections.abc import Sequence


def mean_statistic(clusters: Sequence[Sequence[float]]) -> dict[str, float | None]:
    return {"mean": mean_of_case_means(clusters)}


CASES = [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_the_same_seed_gives_the_same_interval_and_another_seed_another() -> None:
    first = cluster_bootstrap(CASES, mean_statistic, seed=7)["mean"]
    again = cluster_bootstrap(CASES, mean_statistic, seed=7)["mean"]
    other = cluster_bootstrap(CASES, mean_statistic, seed=8)["mean"]

    assert first == again
    assert other.stderr != first.stderr
    assert first.value == pytest.approx(sum(sum(c) / 3 for c in CASES) / 6, abs=1e-6)
    assert first.ci95 is not None
    assert first.value is not None
    assert first.ci95[0] <= first.value <= first.ci95[1]
    assert first.n == 6


def test_the_stderr_is_that_of_case_means_not_of_samples() -> None:
    """Three identical epochs per case add no information: the error is that of 6 cases, not of 18 samples."""
    repeated = [[value] * 3 for value in (1.0, 0.0, 1.0, 1.0, 0.0, 1.0)]
    single = [[value] for value in (1.0, 0.0, 1.0, 1.0, 0.0, 1.0)]

    clustered = cluster_bootstrap(repeated, mean_statistic, resamples=4000, seed=1)["mean"]
    once = cluster_bootstrap(single, mean_statistic, resamples=4000, seed=1)["mean"]

    assert clustered.stderr == once.stderr
    case_means = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    analytic = statistics.pstdev(case_means) / len(case_means) ** 0.5
    assert clustered.stderr == pytest.approx(analytic, rel=0.08)


def test_a_metric_nothing_measured_has_no_interval() -> None:
    estimate = cluster_bootstrap([[1.0]], lambda clusters: {"m": None})["m"]

    assert (estimate.value, estimate.stderr, estimate.ci95) == (None, None, None)
    with pytest.raises(ValueError, match="resamples"):
        cluster_bootstrap(CASES, mean_statistic, resamples=1)


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    assert pass_at_k(5, 0, 1) == 0.0
    assert pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(5, 2, 1) == pytest.approx(2 / 5)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)  # 1 - C(3,2)/C(4,2)
    with pytest.raises(ValueError, match="k must be within"):
        pass_at_k(3, 1, 4)


def test_the_reducers_of_epochs_by_hand() -> None:
    cases = [[True, True, True], [True, False, False], [True, True, False], [False, False, False]]

    reduced = reduce_passes(cases)

    assert reduced == {
        "case_pass_rate": pytest.approx((1 + 1 / 3 + 2 / 3 + 0) / 4, abs=1e-6),
        "pass_at_k": 0.75,  # any epoch passed
        "pass_hat_k": 0.25,  # every epoch passed
        "majority_pass_rate": 0.5,  # more than half passed
    }
    assert reduce_passes([])["pass_at_k"] is None
