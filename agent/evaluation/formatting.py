"""How the reports and the CLI show a metric: one place, so report.md, report.html and the terminal agree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.evaluation.metrics import STATUSES

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent.evaluation.statistics import Estimate

__all__ = (
    "REDUCER_METRICS",
    "SUMMARY_METRICS",
    "format_delta",
    "format_estimate",
    "format_fraction",
    "format_interval",
    "format_metric",
    "format_ms",
    "format_ratio",
    "is_rate",
    "shown_metrics",
)

REDUCER_METRICS = ("case_pass_rate", "pass_at_k", "pass_hat_k", "majority_pass_rate")
"""The reducers of a case's epochs, each a rate over cases."""

SUMMARY_METRICS = (
    "cases",
    "case_pass_rate",
    "outcome_accuracy",
    *(f"outcome_accuracy_{status}" for status in STATUSES),
    "answer_kind_accuracy",
    "guardrail_precision",
    "guardrail_recall",
    "refusal_reason_accuracy",
    "retrieval_hit_rate",
    "retrieval_mrr",
    "citation_precision",
    "action_routing_accuracy",
    "informational_refused_or_paused",
    "well_formed_rate",
    "errors",
    "turn_latency_p50_ms",
    "turn_latency_p95_ms",
    "input_tokens_per_case",
    "output_tokens_per_case",
    "cost_usd_per_case",
)
"""The headline metrics a summary shows, in order (the full set is in report.json)."""


def format_metric(metric: str, value: float | None) -> str:
    if value is None:
        return "–"
    if metric.endswith("_ms"):
        return f"{format_ms(value)} ms"
    if metric.startswith("cost_usd"):
        return f"${value:.6f}"
    if metric in ("cases", "errors", "informational_refused_or_paused"):
        return f"{value:.0f}"
    if metric.endswith("_per_case") or metric == "tokens":
        return f"{value:,.1f}"
    return format_fraction(value)


def format_ms(value: float) -> str:
    """Milliseconds with two decimals: the stub's guardrail nodes take a tenth of one."""
    return f"{value:,.2f}"


def format_fraction(value: float | None) -> str:
    """A metric in [0, 1], with the three decimals the gate's thresholds use."""
    return "–" if value is None else f"{value:.3f}"


def format_delta(metric: str, delta: float | None) -> str:
    if delta is None:
        return "–"
    sign = "+" if delta > 0 else ("−" if delta < 0 else "±")
    return sign + format_metric(metric, abs(delta))


def format_ratio(correct: int, total: int, value: float | None) -> str:
    return "–" if value is None else f"{correct}/{total} ({value:.1%})"


def shown_metrics(estimates: Mapping[str, Estimate]) -> list[str]:
    """The metrics a summary shows, in order: the reducers, the support agent's summary metrics, then the
    rest (a graph's checks and measures) by name."""
    first = [*REDUCER_METRICS, *(m for m in SUMMARY_METRICS if m not in REDUCER_METRICS)]
    return [m for m in first if m in estimates] + sorted(m for m in estimates if m not in first)


def format_interval(metric: str, estimate: Estimate) -> str:
    """``[low, high]`` of the 95% interval, or empty when there is none."""
    if estimate.ci95 is None:
        return ""
    low, high = estimate.ci95
    return f"[{format_metric(metric, low)}, {format_metric(metric, high)}]"


def format_estimate(metric: str, estimate: Estimate | None) -> str:
    """``0.929 ± 0.023 [0.881, 0.968]``: the value, its standard error and its 95% interval."""
    if estimate is None or estimate.value is None:
        return "–"
    text = format_metric(metric, estimate.value)
    if estimate.stderr is not None:
        text += f" ± {format_metric(metric, estimate.stderr)}"
    interval = format_interval(metric, estimate)
    return f"{text} {interval}" if interval else text


def is_rate(metric: str) -> bool:
    """A metric whose values lie in [0, 1] (a share, a score), not a time, a count, tokens or a cost."""
    counted = ("cases", "errors", "informational_refused_or_paused", "tokens")
    return not (metric.endswith(("_ms", "_per_case")) or metric.startswith("cost_usd") or metric in counted)
