"""The headline metrics: one flat name per figure, with the direction that makes it better.

The gate's thresholds, ``compare``'s deltas and the summaries all speak these names, so a metric is
spelt the same in pyproject.toml, report.md and the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from agent.evaluation.metrics import STATUSES
from agent.graph import NODE_LABELS

if TYPE_CHECKING:
    from agent.evaluation.metrics import Metrics

__all__ = ("HEADLINE_METRICS", "Direction", "HeadlineMetric", "headline")

Direction = Literal["higher", "lower"]


class HeadlineMetric(msgspec.Struct, frozen=True):
    direction: Direction
    """Whether a higher or a lower value is better: what the gate and ``compare`` read a change as."""
    description: str


HEADLINE_METRICS: dict[str, HeadlineMetric] = {
    "cases": HeadlineMetric("higher", "cases run (guards against a gutted dataset)"),
    "case_pass_rate": HeadlineMetric("higher", "cases whose every turn met every expectation"),
    "outcome_accuracy": HeadlineMetric("higher", "turns that ended with the expected status"),
    **{
        f"outcome_accuracy_{status}": HeadlineMetric("higher", f"turns expected {status} that ended so")
        for status in STATUSES
    },
    "answer_kind_accuracy": HeadlineMetric("higher", "turns with the expected answer kind"),
    "guardrail_precision": HeadlineMetric("higher", "refused message turns that should have been refused"),
    "guardrail_recall": HeadlineMetric("higher", "message turns that should be refused and were"),
    "refusal_reason_accuracy": HeadlineMetric("higher", "rightful input-guardrail refusals with the expected reason"),
    "retrieval_hit_rate": HeadlineMetric("higher", "graded turns with a relevant document in the top k"),
    "retrieval_mrr": HeadlineMetric("higher", "mean reciprocal rank of the first relevant document (MRR@k)"),
    "citation_precision": HeadlineMetric("higher", "citations that were retrieved and relevant"),
    "action_routing_accuracy": HeadlineMetric("higher", "the expected action with the expected arguments"),
    "informational_refused_or_paused": HeadlineMetric(
        "lower", "message turns expected to complete that were refused or paused instead"
    ),
    "well_formed_rate": HeadlineMetric("higher", "model answers in the structured form the prompt asks for"),
    "errors": HeadlineMetric("lower", "turns that raised or were skipped"),
    "turn_latency_p50_ms": HeadlineMetric("lower", "median of a turn's node spans added up"),
    "turn_latency_p95_ms": HeadlineMetric("lower", "95th percentile of a turn's node spans added up"),
    **{
        f"{node}_{stat}_ms": HeadlineMetric("lower", f"{stat} of the {node} span")
        for node in NODE_LABELS
        for stat in ("p50", "p95")
    },
    "input_tokens_per_case": HeadlineMetric("lower", "mean input tokens of a case"),
    "output_tokens_per_case": HeadlineMetric("lower", "mean output tokens of a case"),
    "cost_usd_per_case": HeadlineMetric("lower", "mean cost of a case in USD"),
}
"""The flat metrics the gate and ``compare`` speak of, by name."""


def headline(metrics: Metrics) -> dict[str, float | None]:
    """Every metric of ``HEADLINE_METRICS``, flat; ``None`` where there was nothing to measure."""
    values: dict[str, float | None] = {
        "cases": float(metrics.cases),
        "case_pass_rate": metrics.case_pass_rate,
        "outcome_accuracy": metrics.outcome_accuracy.value,
        **{
            f"outcome_accuracy_{status}": ratio_.value if (ratio_ := metrics.outcome_by_status.get(status)) else None
            for status in STATUSES
        },
        "answer_kind_accuracy": metrics.answer_kind.value,
        "guardrail_precision": metrics.guardrail.precision,
        "guardrail_recall": metrics.guardrail.recall,
        "refusal_reason_accuracy": metrics.guardrail.reason_accuracy.value,
        "retrieval_hit_rate": metrics.retrieval.hit_rate,
        "retrieval_mrr": metrics.retrieval.mrr,
        "citation_precision": metrics.citations.precision,
        "action_routing_accuracy": metrics.action_routing.value,
        "informational_refused_or_paused": float(metrics.informational_refused_or_paused),
        "well_formed_rate": metrics.well_formed.value,
        "errors": float(metrics.errors),
        "turn_latency_p50_ms": metrics.turn_latency.p50_ms if metrics.turn_latency else None,
        "turn_latency_p95_ms": metrics.turn_latency.p95_ms if metrics.turn_latency else None,
    }
    for node in NODE_LABELS:
        stats = metrics.latency_by_node.get(node)
        values[f"{node}_p50_ms"] = stats.p50_ms if stats else None
        values[f"{node}_p95_ms"] = stats.p95_ms if stats else None
    values["input_tokens_per_case"] = metrics.usage.input_tokens_per_case
    values["output_tokens_per_case"] = metrics.usage.output_tokens_per_case
    values["cost_usd_per_case"] = metrics.usage.cost_usd_per_case
    return values
