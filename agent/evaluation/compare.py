"""``compare``: is the candidate better, worse or no different from the baseline, on the same cases?

Cases are paired by id. Per metric, each case gets one value per run (its epochs reduced by their mean,
so a case's pass rate over epochs or its mean reciprocal rank), and the paired values go to
``significance.paired_test``: McNemar's exact test for pass/fail, a sign-flip permutation test for any
other value, the effect (candidate minus baseline) with a 95% paired bootstrap interval.

A metric is ``regressed`` or ``improved`` only when the change is significant (p below ``alpha``); a
regression *blocks* (``harness eval compare`` exits 1) only when its effect is also at least the metric's
minimum effect. Metrics in a unit of their own (milliseconds, tokens, dollars) block only when
``[tool.harness.gate.compare]`` names a minimum effect for them: they depend on the machine and provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from agent.evaluation.headline import headline
from agent.evaluation.metrics import compute_metrics
from agent.evaluation.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, PairedTest, paired_test

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent.evaluation.report import ProviderReport, Report
    from agent.evaluation.results import CaseResult

__all__ = (
    "PAIRED_METRICS",
    "CaseChange",
    "CompareSettings",
    "Comparison",
    "MetricVerdict",
    "PairedMetric",
    "case_values",
    "compare",
)

Verdict = Literal["improved", "regressed", "no significant change", "not measured"]
Unit = Literal["rate", "count", "ms", "tokens", "usd"]


class PairedMetric(msgspec.Struct, frozen=True):
    direction: Literal["higher", "lower"]
    unit: Unit
    """``rate`` (0 to 1) and ``count`` metrics block on ``min_effect``; the others only on their own."""


PAIRED_METRICS: dict[str, PairedMetric] = {
    "case_pass_rate": PairedMetric("higher", "rate"),
    "outcome_accuracy": PairedMetric("higher", "rate"),
    "answer_kind_accuracy": PairedMetric("higher", "rate"),
    "guardrail_recall": PairedMetric("higher", "rate"),
    "guardrail_precision": PairedMetric("higher", "rate"),
    "refusal_reason_accuracy": PairedMetric("higher", "rate"),
    "retrieval_hit_rate": PairedMetric("higher", "rate"),
    "retrieval_mrr": PairedMetric("higher", "rate"),
    "citation_precision": PairedMetric("higher", "rate"),
    "action_routing_accuracy": PairedMetric("higher", "rate"),
    "well_formed_rate": PairedMetric("higher", "rate"),
    "informational_refused_or_paused": PairedMetric("lower", "count"),
    "errors": PairedMetric("lower", "count"),
    "latency_ms": PairedMetric("lower", "ms"),
    "input_tokens": PairedMetric("lower", "tokens"),
    "output_tokens": PairedMetric("lower", "tokens"),
    "cost_usd": PairedMetric("lower", "usd"),
}
"""The metrics compared case by case: each has a value per case (a case's own ratio, count or total)."""

_CASE_TOTALS = ("latency_ms", "input_tokens", "output_tokens", "cost_usd")


class CompareSettings(msgspec.Struct, frozen=True, kw_only=True):
    """``[tool.harness.gate.compare]``: when a difference is a regression, and when it blocks."""

    alpha: float = 0.05
    """A change is significant when its two-sided p-value is below this."""
    min_effect: float = 0.03
    """A significant regression of a rate or count metric blocks when its effect is at least this."""
    min_effect_by_metric: dict[str, float] = msgspec.field(default_factory=dict)
    """A minimum effect of its own for a metric (``min_effect_<metric>``), in the metric's unit."""
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED

    def minimum_effect(self, metric: str) -> float | None:
        """The effect a regression of ``metric`` must reach to block; ``None``: it never blocks."""
        if metric in self.min_effect_by_metric:
            return self.min_effect_by_metric[metric]
        return self.min_effect if PAIRED_METRICS[metric].unit in ("rate", "count") else None


class MetricVerdict(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    metric: str
    direction: Literal["higher", "lower"]
    baseline: float | None
    """Mean over the paired cases in the baseline."""
    candidate: float | None
    paired: PairedTest
    verdict: Verdict
    blocking: bool
    """A significant regression at least the metric's minimum effect: the comparison fails."""


class CaseChange(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    case_id: str
    baseline: float
    """The case's pass rate over its epochs (0 or 1 with one epoch)."""
    candidate: float


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    same_dataset: bool
    """Both reports ran the same dataset bytes; if not, only the cases both have are compared."""
    alpha: float
    verdicts: list[MetricVerdict]
    case_changes: list[CaseChange]
    unpaired_cases: dict[str, int]
    """Per provider: cases in only one of the two reports (left out of every test)."""
    unmatched_providers: list[str]
    """Providers present in only one of the reports."""

    @property
    def blocking(self) -> list[MetricVerdict]:
        return [verdict for verdict in self.verdicts if verdict.blocking]

    @property
    def passed(self) -> bool:
        return not self.blocking


def case_values(run: ProviderReport) -> dict[str, dict[str, float]]:
    """Per case id, each paired metric's value for that case (absent where the case does not measure it)."""
    k = run.metrics.retrieval.k
    return {case.id: _one_case(case, k) for case in run.cases}


def compare(old: Report, new: Report, settings: CompareSettings | None = None) -> Comparison:
    settings = settings or CompareSettings()
    pairs, unmatched = _pair_runs(old, new)
    verdicts: list[MetricVerdict] = []
    changes: list[CaseChange] = []
    unpaired: dict[str, int] = {}
    for name, before, after in pairs:
        base, cand = case_values(before), case_values(after)
        shared = [case_id for case_id in base if case_id in cand]
        unpaired[name] = len(set(base) ^ set(cand))
        for metric in PAIRED_METRICS:
            ids = [i for i in shared if metric in base[i] and metric in cand[i]]
            verdicts.append(
                _verdict(name, metric, [base[i][metric] for i in ids], [cand[i][metric] for i in ids], settings)
            )
        changes += [
            CaseChange(
                provider=name, case_id=i, baseline=base[i]["case_pass_rate"], candidate=cand[i]["case_pass_rate"]
            )
            for i in shared
            if base[i]["case_pass_rate"] != cand[i]["case_pass_rate"]
        ]
    return Comparison(
        same_dataset=old.dataset.sha256 == new.dataset.sha256,
        alpha=settings.alpha,
        verdicts=verdicts,
        case_changes=changes,
        unpaired_cases=unpaired,
        unmatched_providers=unmatched,
    )


def _verdict(
    provider: str, metric: str, baseline: Sequence[float], candidate: Sequence[float], settings: CompareSettings
) -> MetricVerdict:
    spec = PAIRED_METRICS[metric]
    test = paired_test(
        baseline,
        candidate,
        resamples=settings.resamples,
        seed=settings.seed,
        pass_fail=spec.unit in ("rate", "count"),
    )
    verdict: Verdict = "not measured"
    blocking = False
    if test.effect is not None and test.p_value is not None:
        verdict = "no significant change"
        if test.p_value < settings.alpha and test.effect != 0:
            worse = (test.effect < 0) == (spec.direction == "higher")
            verdict = "regressed" if worse else "improved"
            minimum = settings.minimum_effect(metric)
            blocking = worse and minimum is not None and abs(test.effect) >= minimum
    return MetricVerdict(
        provider=provider,
        metric=metric,
        direction=spec.direction,
        baseline=_mean(baseline),
        candidate=_mean(candidate),
        paired=test,
        verdict=verdict,
        blocking=blocking,
    )


def _one_case(case: CaseResult, k: int) -> dict[str, float]:
    """The case's own values: its headline metrics computed over it alone, epochs averaged."""
    epochs: Sequence[CaseResult] = getattr(case, "epoch_results", None) or [case]
    per_epoch = [_one_epoch(result, k) for result in epochs]
    values: dict[str, float] = {}
    for metric in PAIRED_METRICS:
        measured = [v[metric] for v in per_epoch if v.get(metric) is not None]
        if measured:
            values[metric] = round(sum(measured) / len(measured), 6)  # type: ignore[arg-type]
    return values


def _one_epoch(case: CaseResult, k: int) -> Mapping[str, float | None]:
    values = headline(compute_metrics([case], k=k))
    values = {metric: values.get(metric) for metric in PAIRED_METRICS if metric not in _CASE_TOTALS}
    values["case_pass_rate"] = 1.0 if case.passed else 0.0
    if not _measures_informational(case):
        values["informational_refused_or_paused"] = None
    values["latency_ms"] = case.latency_ms
    values["input_tokens"] = float(case.input_tokens)
    values["output_tokens"] = float(case.output_tokens)
    values["cost_usd"] = case.cost_usd
    return values


def _measures_informational(case: CaseResult) -> bool:
    return any(t.kind == "message" and t.expected.status == "completed" for t in case.turns)


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


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
