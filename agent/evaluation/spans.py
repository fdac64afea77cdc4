"""Reading a turn's OpenTelemetry spans: node latencies, the retrieved documents, the guardrail's reason, and
whether the model's answer was well formed.

The spans are what the agent itself measured; the harness keeps no stopwatch of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.results import NodeTiming

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ("TurnSpans", "read_turn_spans")

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
