"""What a case did: the support agent's observations per turn, the metrics and reports read them, and a
provider's pass over a dataset (``EvalRun``).

They are part of ``report.json``, so they change only additively within a report schema version.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from agent.evaluation.records import GraphRecord
from agent.evaluation.support_cases import CaseCategory, TurnExpect
from agent.llm.answer import ProposedAction

__all__ = ("ActualStatus", "CaseResult", "EvalRun", "NodeTiming", "ProposedAction", "StubSampling", "TurnResult")

ActualStatus = Literal["completed", "refused", "paused", "rejected", "error", "skipped"]
"""A turn's status as its ``ChatResponse`` gives it (``paused`` at the approval, else the state's), or ``error``
when it raised, or ``skipped`` when an earlier turn failed (or a resume had no pause to answer)."""


class NodeTiming(msgspec.Struct, frozen=True, kw_only=True):
    """One node of the turn as its trace entry has it: the node span's duration, not a stopwatch of the harness."""

    node: str
    latency_ms: float
    outcome: str


class TurnResult(msgspec.Struct, kw_only=True):
    index: int
    """1-based position in the case."""
    kind: Literal["message", "resume"]
    sent: str
    """The message, or ``[approve]`` / ``[reject]`` for a resume."""
    expected: TurnExpect
    status: ActualStatus
    answer_kind: str | None = None
    answer_text: str = ""
    retrieved: list[str] = msgspec.field(default_factory=list)
    """The ids of the passages this turn's ``retrieve_context`` found, best first."""
    cited: list[str] = msgspec.field(default_factory=list)
    guardrail_refused: bool = False
    """The input guardrail refused the turn (its ``guardrail_pre`` ended ``refused``)."""
    refusal_reason: str | None = None
    well_formed: bool | None = None
    """The model answered in the structured form it was asked for (``generate_answer`` did not end
    ``answered_plain``); ``None`` when the turn never reached the model."""
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
    events: str | None = None
    """The case's recorded event log (JSONL of the run's envelopes), relative to the report's folder."""

    @classmethod
    def of(
        cls,
        *,
        id: str,
        category: CaseCategory,
        known_issue: str | None,
        turns: list[TurnResult],
        epoch: int = 1,
        events: str | None = None,
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
            events=events,
        )


class StubSampling(msgspec.Struct, frozen=True, kw_only=True):
    """How a pass's stub sampled: its temperature and the base seed every case and epoch's seed came from
    (``HARNESS_STUB_TEMPERATURE``, ``HARNESS_STUB_SEED``). The same seed gives the same answers again."""

    temperature: float
    seed: int


class EvalRun(msgspec.Struct, kw_only=True):
    """One provider's pass over the dataset."""

    provider: str
    model: str | None
    """The model the responses name (the first one seen)."""
    started_at: str
    duration_s: float
    """Wall time of the whole pass (how long the eval took, not a metric of the agent)."""
    concurrency: int
    retrieval_k: int
    cases: list[CaseResult]
    """The support agent's results, one per case and epoch, in dataset order."""
    epochs: int = 1
    records: list[GraphRecord] = msgspec.field(default_factory=list)
    """Another graph's results (``agent.evaluation.graph_runner``), one per case and epoch."""
    sampling: StubSampling | None = None
    """The stub's sampling, when it sampled (a temperature above 0); ``None`` when it was deterministic."""
