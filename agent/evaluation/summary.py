"""A run's cases as scores per epoch, and every metric as an estimate with its interval.

The support agent's metrics are its headline metrics (``agent.evaluation.headline``), computed over every
case and epoch pooled, exactly as one epoch always was; a case's score for a metric is that metric on the
case alone (``None`` where the case has nothing to measure, e.g. recall on a case nothing should refuse).
A graph's metrics are the mean of its checks' scores. Both add the reducers of the epochs' pass/fail.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import msgspec

from agent.evaluation.headline import headline
from agent.evaluation.metrics import compute_metrics
from agent.evaluation.statistics import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Estimate,
    cluster_bootstrap,
    mean_of_case_means,
    pass_curve,
    reduce_passes,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent.evaluation.records import GraphRecord
    from agent.evaluation.results import CaseResult

__all__ = ("CaseScores", "graph_summary", "group_by_case", "support_summary")

GRAPH_MEASURES = ("latency_ms", "tokens")
"""Scores every graph case gets besides its checks: they are measured, not passed or failed."""


class CaseScores(msgspec.Struct, kw_only=True):
    """One case over its epochs, as ``report.json``'s ``cases`` lists it."""

    id: str
    passed: bool
    """Every epoch passed."""
    epochs_passed: int
    epochs: int
    scores: dict[str, list[float | None]]
    """Metric → its value on this case at each epoch, ``None`` where it does not apply."""
    category: str | None = None
    known_issue: str | None = None
    failures: list[str] = msgspec.field(default_factory=list)
    """What the first failing epoch missed, in words."""
    events: list[str] = msgspec.field(default_factory=list)
    """Each epoch's recorded event log, relative to the report's folder."""
    pass_at: dict[int, float] = msgspec.field(default_factory=dict)
    """k → pass@k of this case, for k from 1 to ``epochs``: the chance that at least one of k of its epochs,
    drawn without replacement, passed (1 - C(epochs - epochs_passed, k) / C(epochs, k))."""
    pass_hat: dict[int, float] = msgspec.field(default_factory=dict)
    """k → pass^k of this case: the chance that all k drawn epochs passed (C(epochs_passed, k) / C(epochs, k))."""
    flaky: bool = False
    """It both passed and failed across its epochs."""


def group_by_case(results: Sequence[Any]) -> list[list[Any]]:
    """Results (anything with ``id`` and ``epoch``) grouped per case, in first-seen order, epochs in order."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for result in results:
        groups[result.id].append(result)
    return [sorted(group, key=lambda r: r.epoch) for group in groups.values()]


def support_summary(
    results: Sequence[CaseResult], *, k: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[list[CaseScores], dict[str, Estimate]]:
    clusters = group_by_case(results)
    per_case = [
        _case_scores(
            group,
            [_one_case_headline(r, k) for r in group],
            failures=next(
                ([f"turn {t.index}: {f}" for t in r.turns for f in t.failures] for r in group if not r.passed), []
            ),
            events=[r.events for r in group if r.events],
        )
        for group in clusters
    ]

    def statistic(sample: Sequence[Sequence[CaseResult]]) -> dict[str, float | None]:
        values = headline(compute_metrics([r for group in sample for r in group], k=k))
        return {**values, **reduce_passes([[r.passed for r in group] for group in sample])}

    counts = _measured_counts(per_case)
    return per_case, cluster_bootstrap(clusters, statistic, counts=counts, resamples=resamples, seed=seed)


def graph_summary(
    records: Sequence[GraphRecord], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[list[CaseScores], dict[str, Estimate]]:
    clusters = group_by_case(records)
    per_case = [
        _case_scores(
            group,
            [_record_scores(r) for r in group],
            failures=next((r.failures or [r.error or r.status] for r in group if not r.passed), []),
            events=[r.events for r in group if r.events],
        )
        for group in clusters
    ]
    names = sorted({name for case in per_case for name in case.scores} - {"passed"})
    by_id = {case.id: case for case in per_case}

    def statistic(sample: Sequence[Sequence[GraphRecord]]) -> dict[str, float | None]:
        cases = [by_id[group[0].id] for group in sample]
        values: dict[str, float | None] = dict(reduce_passes([[r.passed for r in group] for group in sample]))
        values["errors"] = float(sum(1 for group in sample for r in group if r.status == "error"))
        for name in names:
            values[name] = mean_of_case_means([case.scores.get(name, []) for case in cases])
        return values

    counts = _measured_counts(per_case)
    return per_case, cluster_bootstrap(clusters, statistic, counts=counts, resamples=resamples, seed=seed)


def _case_scores(
    group: Sequence[CaseResult] | Sequence[GraphRecord],
    scores: Sequence[Mapping[str, float | None]],
    *,
    failures: list[str],
    events: list[str] | None = None,
) -> CaseScores:
    """One case's epochs (``group``, with each epoch's ``scores``) as ``report.json`` lists it."""
    passed = sum(r.passed for r in group)
    pass_at, pass_hat = pass_curve(len(group), passed)
    return CaseScores(
        id=group[0].id,
        passed=passed == len(group),
        epochs_passed=passed,
        epochs=len(group),
        scores=_transpose(scores),
        category=group[0].category,
        known_issue=group[0].known_issue,
        failures=failures,
        events=events or [],
        pass_at=pass_at,
        pass_hat=pass_hat,
        flaky=0 < passed < len(group),
    )


def _one_case_headline(result: CaseResult, k: int) -> dict[str, float | None]:
    values = headline(compute_metrics([result], k=k))
    values.pop("cases", None)
    values["passed"] = float(result.passed)
    return values


def _record_scores(record: GraphRecord) -> dict[str, float | None]:
    scores: dict[str, float | None] = {"passed": float(record.passed)}
    for check in record.checks:
        scores[check.name] = check.value
    scores["latency_ms"] = record.latency_ms
    scores["tokens"] = float(record.input_tokens + record.output_tokens)
    return scores


def _transpose(rows: Sequence[Mapping[str, float | None]]) -> dict[str, list[float | None]]:
    names = list(dict.fromkeys(name for row in rows for name in row))
    return {name: [row.get(name) for row in rows] for name in names}


def _measured_counts(cases: Sequence[CaseScores]) -> dict[str, int]:
    """Per metric, the cases with at least one epoch that measured it."""
    counts: dict[str, int] = defaultdict(int)
    for case in cases:
        for name, values in case.scores.items():
            if any(v is not None for v in values):
                counts[name] += 1
    counts["case_pass_rate"] = counts["pass_at_k"] = counts["pass_hat_k"] = counts["majority_pass_rate"] = len(cases)
    return dict(counts)
