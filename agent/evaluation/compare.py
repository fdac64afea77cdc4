"""``compare``: what changed between two reports, metric by metric and case by case, per provider."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from agent.evaluation.headline import HEADLINE_METRICS, headline

if TYPE_CHECKING:
    from agent.evaluation.headline import HeadlineMetric
    from agent.evaluation.report import ProviderReport, Report

__all__ = ("CaseChange", "Comparison", "MetricDelta", "compare")

Verdict = Literal["better", "worse", "same", "n/a"]
_EPSILON = 1e-9


class MetricDelta(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    metric: str
    old: float | None
    new: float | None
    delta: float | None
    verdict: Verdict
    """Read with the metric's direction: a lower latency is ``better``."""


class CaseChange(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    case_id: str
    now_passes: bool
    """True: fixed since the old report. False: a regression."""


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    same_dataset: bool
    """Both reports ran the same dataset bytes; if not, case-level changes are only indicative."""
    deltas: list[MetricDelta]
    case_changes: list[CaseChange]
    unmatched_providers: list[str]
    """Providers present in only one of the reports."""


def compare(old: Report, new: Report) -> Comparison:
    pairs, unmatched = _pair_runs(old, new)
    deltas: list[MetricDelta] = []
    changes: list[CaseChange] = []
    for name, before, after in pairs:
        old_values, new_values = headline(before.metrics), headline(after.metrics)
        for metric, spec in HEADLINE_METRICS.items():
            a, b = old_values.get(metric), new_values.get(metric)
            delta = None if a is None or b is None else round(b - a, 6)
            deltas.append(
                MetricDelta(provider=name, metric=metric, old=a, new=b, delta=delta, verdict=_verdict(delta, spec))
            )
        passed_before = {case.id: case.passed for case in before.cases}
        for case in after.cases:
            if case.id in passed_before and passed_before[case.id] != case.passed:
                changes.append(CaseChange(provider=name, case_id=case.id, now_passes=case.passed))
    return Comparison(
        same_dataset=old.dataset.sha256 == new.dataset.sha256,
        deltas=deltas,
        case_changes=changes,
        unmatched_providers=unmatched,
    )


def _pair_runs(old: Report, new: Report) -> tuple[list[tuple[str, ProviderReport, ProviderReport]], list[str]]:
    """Runs matched by provider; two single-provider reports are compared whatever their providers."""
    if len(old.runs) == 1 and len(new.runs) == 1:
        a, b = old.runs[0], new.runs[0]
        name = a.provider if a.provider == b.provider else f"{a.provider} → {b.provider}"
        return [(name, a, b)], []
    before = {run.provider: run for run in old.runs}
    after = {run.provider: run for run in new.runs}
    pairs = [(name, before[name], after[name]) for name in before if name in after]
    unmatched = sorted(set(before) ^ set(after))
    return pairs, unmatched


def _verdict(delta: float | None, spec: HeadlineMetric) -> Verdict:
    if delta is None:
        return "n/a"
    if abs(delta) < _EPSILON:
        return "same"
    return "better" if (delta > 0) == (spec.direction == "higher") else "worse"
