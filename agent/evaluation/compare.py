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

from agent.evaluation.headline import HEADLINE_METRICS
from agent.evaluation.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, PairedTest, paired_test

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.report import ProviderReport, Report

__all__ = (
    "GRAPH_CHECKS",
    "CaseChange",
    "CompareSettings",
    "Comparison",
    "MetricVerdict",
    "PairedMetric",
    "case_values",
    "comparable_names",
    "compare",
    "paired_metric",
)

Verdict = Literal["improved", "regressed", "no significant change", "not measured"]
Unit = Literal["rate", "count", "ms", "tokens", "usd"]


class PairedMetric(msgspec.Struct, frozen=True):
    direction: Literal["higher", "lower"]
    unit: Unit
    """``rate`` (0 to 1) and ``count`` metrics block on ``min_effect``; the others only on their own."""


_SKIPPED = frozenset({"cases"})
GRAPH_CHECKS = ("state", "trajectory", "tools", "interrupts", "budget", "judge")
"""The scores of another graph's checks (a custom ``module:function`` scorer adds its own name)."""
_GENERIC_LOWER = {"latency_ms": "ms", "tokens": "tokens", "errors": "count"}


def comparable_names() -> list[str]:
    """The scores a ``min_effect_<metric>`` may name: headline metrics, a graph's checks, latency, tokens."""
    names = ["case_pass_rate", *HEADLINE_METRICS, *GRAPH_CHECKS, "latency_ms", "tokens"]
    return [name for name in names if paired_metric(name) is not None]


def paired_metric(name: str) -> PairedMetric | None:
    """How a per-case score of ``report.json`` is read; ``None`` for one a case cannot be compared on.

    The support agent's are the headline metrics (their direction from ``HEADLINE_METRICS``); per-node
    latency percentiles and the 95th percentile of a single case say nothing a case's total does not, so
    only ``turn_latency_p50_ms`` (the case's turn latency) is kept. Another graph's checks are scores where
    higher is better, its ``latency_ms`` and ``tokens`` lower.
    """
    if name in _SKIPPED or (name.endswith("_ms") and name not in ("turn_latency_p50_ms", "latency_ms")):
        return None
    unit: Unit = (
        "ms"
        if name.endswith("_ms")
        else "usd"
        if name.startswith("cost_usd")
        else "tokens"
        if "tokens" in name
        else "count"
        if name in ("errors", "informational_refused_or_paused")
        else "rate"
    )
    spec = HEADLINE_METRICS.get(name)
    if spec is not None:
        return PairedMetric(spec.direction, unit)
    return PairedMetric("lower" if name in _GENERIC_LOWER else "higher", unit)


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
        spec = paired_metric(metric)
        return self.min_effect if spec is not None and spec.unit in ("rate", "count") else None


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
    """Per case id, each comparable score's mean over the case's epochs (absent where no epoch measured it).

    ``passed`` becomes ``case_pass_rate``: 0 or 1 with one epoch, the share of epochs passed with more.
    """
    values: dict[str, dict[str, float]] = {}
    for case in run.case_scores:
        own: dict[str, float] = {}
        for name, epochs in case.scores.items():
            metric = "case_pass_rate" if name == "passed" else name
            measured = [v for v in epochs if v is not None]
            if measured and paired_metric(metric) is not None:
                own[metric] = round(sum(measured) / len(measured), 6)
        values[case.id] = own
    return values


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
        names = dict.fromkeys(m for i in shared for m in (*base[i], *cand[i]))
        for metric in sorted(names, key=_order):
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
    spec = paired_metric(metric)
    assert spec is not None
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


def _order(metric: str) -> tuple[int, str]:
    """The headline metrics in their own order (pass rate first), then any other score by name."""
    names = ["case_pass_rate", *HEADLINE_METRICS]
    return (names.index(metric), "") if metric in names else (len(names), metric)


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
