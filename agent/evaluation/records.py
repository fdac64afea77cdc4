"""What one run of a case through a registered graph did, read from LangGraph's own streams.

One ``GraphRecord`` per case and epoch: the final state and the state at every stop of the case (after its
input, each resume and each later turn), the trajectory (the nodes in the order they ran, a node paused by an
interrupt and run again on resume counted once, each pause marked ``__interrupt__``), the model's tool
calls, the interrupts raised, time and tokens, and every check's verdict. It is part of
``report.json`` and of the resume file, so it changes only additively within a report schema version.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = ("INTERRUPT_MARKER", "Check", "GraphRecord", "GraphStep", "NodeStep", "SentKind", "ToolCall")

SentKind = Literal["input", "resume", "then"]

INTERRUPT_MARKER = "__interrupt__"
"""A trajectory's step where the run paused at an interrupt: LangGraph's own name for a pause, the one
agentevals' graph trajectories end a paused step with."""


class NodeStep(msgspec.Struct, frozen=True, kw_only=True):
    node: str
    """The node's name; a subgraph's node by its path (``step:search``)."""
    depth: int = 0
    """0 for the graph's own nodes, 1 for a subgraph's, and so on."""
    latency_ms: float = 0.0
    """Its run's time; a node paused and run again on resume: both runs' added up."""
    outcome: str = "ok"
    """``ok``, ``error``, or ``interrupted`` (it paused and the case ended there); the marker's is
    ``interrupted`` too."""


class ToolCall(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    args: dict[str, Any] = msgspec.field(default_factory=dict)


class Check(msgspec.Struct, frozen=True, kw_only=True):
    """One scorer's verdict on one case and epoch."""

    name: str
    """The metric it counts towards: ``state``, ``trajectory``, ``tools``, ``interrupts``, ``budget``,
    ``judge`` or a custom scorer's ``module:function``."""
    passed: bool
    score: float | None = None
    """In [0, 1]; ``None``: the pass/fail (1 or 0)."""
    detail: str = ""
    """What was missed, in words (empty when it passed)."""

    @property
    def value(self) -> float:
        return self.score if self.score is not None else float(self.passed)


class GraphStep(msgspec.Struct, kw_only=True):
    """Where the run stopped after one send: what a check of each turn reads (the support agent's ``turns``)."""

    sent: SentKind
    """The case's input, the answer to an interrupt, or a later turn (``then``)."""
    paused: bool = False
    interrupts: list[Any] = msgspec.field(default_factory=list)
    """The values of the interrupts it stopped at; empty when it finished."""
    state: Any = None
    """The state values then (JSON-safe, redacted and bounded like a run's output)."""


class GraphRecord(msgspec.Struct, kw_only=True):
    id: str
    epoch: int = 1
    passed: bool = False
    category: str | None = None
    known_issue: str | None = None
    status: str = "completed"
    """``completed``, ``paused`` (an interrupt nobody answered) or ``error``."""
    error: str | None = None
    state: Any = None
    """The final state values (JSON-safe, redacted and bounded like a run's output)."""
    steps: list[GraphStep] = msgspec.field(default_factory=list)
    """Every stop of a case checked turn by turn (``expect.turns``), in order; the last one's state is ``state``.
    Empty for other cases: a report would otherwise hold a graph's whole state once per stop."""
    trajectory: list[NodeStep] = msgspec.field(default_factory=list)
    """One step per completed execution of a node, in the order they started, and an ``INTERRUPT_MARKER``
    where the run paused: a node that called ``interrupt()`` and ran again when resumed is one step, where it
    first started (an older report lists it twice, the pause as the first one's outcome)."""
    tool_calls: list[ToolCall] = msgspec.field(default_factory=list)
    interrupts: list[Any] = msgspec.field(default_factory=list)
    """The value of every interrupt raised, in order."""
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    checks: list[Check] = msgspec.field(default_factory=list)
    events: str | None = None
    """The case's recorded event log (JSONL of the run's envelopes), relative to the report's folder."""

    @property
    def failures(self) -> list[str]:
        return [f"{c.name}: {c.detail}" for c in self.checks if not c.passed]

    def node_names(self, *, nested: bool, marked: bool = False) -> list[str]:
        """The trajectory's node names: a subgraph's too when ``nested``; the pauses when ``marked``."""
        return [
            step.node
            for step in self.trajectory
            if (nested or step.depth == 0) and (marked or step.node != INTERRUPT_MARKER)
        ]
