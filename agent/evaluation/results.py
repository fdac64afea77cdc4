"""What a case did: the observations the runner records and the metrics and reports read.

They are part of ``report.json``, so they change only additively within a report schema version.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from agent.evaluation.dataset import CaseCategory, Expectation

__all__ = ("ActualStatus", "CaseResult", "NodeTiming", "ProposedAction", "TurnResult")

ActualStatus = Literal["completed", "refused", "paused", "rejected", "error", "skipped"]
"""A turn's ``ChatResponse.status``, or ``error`` when it raised, or ``skipped`` when an earlier turn failed."""


class ProposedAction(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    arguments: dict[str, Any]


class NodeTiming(msgspec.Struct, frozen=True, kw_only=True):
    """One node span of the turn: the span's duration, not a stopwatch of the harness."""

    node: str
    latency_ms: float
    outcome: str


class TurnResult(msgspec.Struct, kw_only=True):
    index: int
    """1-based position in the case."""
    kind: Literal["message", "resume"]
    sent: str
    """The message, or ``[approve]`` / ``[reject]`` for a resume."""
    expected: Expectation
    status: ActualStatus
    answer_kind: str | None = None
    answer_text: str = ""
    retrieved: list[str] = msgspec.field(default_factory=list)
    """Document ids from this turn's ``retrieval.search`` span, best first."""
    cited: list[str] = msgspec.field(default_factory=list)
    guardrail_refused: bool = False
    """The input guardrail refused the turn (its ``guardrail_pre`` span ended ``refused``)."""
    refusal_reason: str | None = None
    well_formed: bool | None = None
    """The model answered in the structured form it was asked for (``llm.generate``'s ``llm.well_formed``);
    ``None`` when the turn never reached the model."""
    action: ProposedAction | None = None
    nodes: list[NodeTiming] = msgspec.field(default_factory=list)
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    error: str | None = None
    failures: list[str] = msgspec.field(default_factory=list)
    """Every expectation the turn missed, in words; empty when it met them all."""

    @property
    def latency_ms(self) -> float:
        """The turn's node spans added up."""
        return sum(timing.latency_ms for timing in self.nodes)


class CaseResult(msgspec.Struct, kw_only=True):
    id: str
    epoch: int = 1
    """Which repetition of the case this is (``--epochs``), from 1."""
    category: CaseCategory
    passed: bool
    """Every turn met every expectation."""
    known_issue: str | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    """``None`` when one of the case's model calls has no known price (never a made-up 0)."""
    latency_ms: float
    """The node spans of every turn added up (the human's wait between a pause and its resume is not in it)."""
    turns: list[TurnResult]

    @classmethod
    def of(
        cls, *, id: str, category: CaseCategory, known_issue: str | None, turns: list[TurnResult], epoch: int = 1
    ) -> CaseResult:
        ran = [turn for turn in turns if turn.status not in ("error", "skipped")]
        costs = [turn.cost_usd for turn in ran]
        return cls(
            id=id,
            epoch=epoch,
            category=category,
            passed=all(not turn.failures for turn in turns),
            known_issue=known_issue,
            input_tokens=sum(turn.input_tokens for turn in turns),
            output_tokens=sum(turn.output_tokens for turn in turns),
            cost_usd=None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 8),
            latency_ms=round(sum(turn.latency_ms for turn in turns), 3),
            turns=turns,
        )
