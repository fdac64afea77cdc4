"""How the reports and the CLI show a metric: one place, so report.md, report.html and the terminal agree."""

from __future__ import annotations

from agent.evaluation.metrics import STATUSES

__all__ = ("SUMMARY_METRICS", "format_delta", "format_fraction", "format_metric", "format_ms", "format_ratio")

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
    if metric.endswith("_per_case"):
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
