"""Reading a turn's OpenTelemetry spans (node latencies, the retrieved documents, the guardrail's reason,
whether the model's answer was well formed), and writing a case's scores back into the trace as
``gen_ai.evaluation.result`` events.

The spans are what the agent itself measured; the harness keeps no stopwatch of its own. The scores go on
an ``evaluate {case}`` span, a child of the case's last ``invoke_agent`` span, as the GenAI conventions ask
(an evaluation event is parented to the operation it evaluates), so a trace backend shows them beside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from opentelemetry import trace

from agent import gen_ai
from agent.evaluation.results import NodeTiming

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import Span, Tracer

__all__ = ("Evaluation", "TurnSpans", "read_turn_spans", "record_evaluations")

_NODE_PREFIX = "node "


class TurnSpans(msgspec.Struct, frozen=True, kw_only=True):
    nodes: list[NodeTiming]
    """Node spans in the order they started."""
    retrieved: list[str]
    refusal_reason: str | None
    well_formed: bool | None = None
    """Whether the model answered in the structured form it was asked for; ``None`` when no model was called."""


def read_turn_spans(spans: Sequence[ReadableSpan]) -> TurnSpans:
    """What the spans of one turn say (and only that turn's: the runner clears the exporter between turns)."""
    nodes: list[tuple[int, NodeTiming]] = []
    retrieved: list[str] = []
    reason: str | None = None
    well_formed: bool | None = None
    for span in spans:
        attributes = span.attributes or {}
        if span.name.startswith(_NODE_PREFIX) and "agent.node" in attributes:
            start, end = span.start_time or 0, span.end_time or 0
            timing = NodeTiming(
                node=str(attributes["agent.node"]),
                latency_ms=round((end - start) / 1e6, 3),
                outcome=str(attributes.get("agent.outcome", "")),
            )
            nodes.append((start, timing))
        elif span.name == "retrieval.search":
            retrieved = [str(doc_id) for doc_id in attributes.get("retrieval.doc_ids", ()) or ()]  # type: ignore[union-attr]
        elif span.name == "guardrail.input" and "guardrail.reason" in attributes:
            reason = str(attributes["guardrail.reason"])
        elif span.name == "llm.generate" and "llm.well_formed" in attributes:
            well_formed = bool(attributes["llm.well_formed"])
    nodes.sort(key=lambda pair: pair[0])
    return TurnSpans(
        nodes=[timing for _, timing in nodes], retrieved=retrieved, refusal_reason=reason, well_formed=well_formed
    )


class Evaluation(msgspec.Struct, frozen=True, kw_only=True):
    """One score of one case: a ``gen_ai.evaluation.result`` event."""

    name: str
    score: float | None = None
    label: str | None = None
    """Low-cardinality: ``pass`` or ``fail`` for a check."""
    explanation: str | None = None


def record_evaluations(
    tracer: Tracer, evaluated: Span | None, *, case_id: str, epoch: int, evaluations: Sequence[Evaluation]
) -> None:
    """An ``evaluate {case_id}`` span under ``evaluated`` (the case's ``invoke_agent`` span, ended or not)
    holding one ``gen_ai.evaluation.result`` event per evaluation."""
    context = trace.set_span_in_context(evaluated) if evaluated is not None else None
    attributes: dict[str, str | int] = {"harness.eval.case_id": case_id, "harness.eval.epoch": epoch}
    with tracer.start_as_current_span(f"evaluate {case_id}", context=context, attributes=attributes) as span:
        for evaluation in evaluations:
            event: dict[str, str | float] = {gen_ai.EVALUATION_NAME: evaluation.name}
            if evaluation.score is not None:
                event[gen_ai.EVALUATION_SCORE_VALUE] = evaluation.score
            if evaluation.label is not None:
                event[gen_ai.EVALUATION_SCORE_LABEL] = evaluation.label
            if evaluation.explanation:
                event[gen_ai.EVALUATION_EXPLANATION] = evaluation.explanation
            span.add_event(gen_ai.EVALUATION_EVENT, attributes=event)
