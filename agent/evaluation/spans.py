"""Writing a case's scores into its trace as ``gen_ai.evaluation.result`` events.

The scores go on an ``evaluate {case}`` span, a child of the case's last ``invoke_agent`` span, as the GenAI
conventions ask (an evaluation event is parented to the operation it evaluates), so a trace backend shows
them beside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from opentelemetry import trace

from agent import gen_ai

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opentelemetry.trace import Span, Tracer

__all__ = ("Evaluation", "record_evaluations")


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
