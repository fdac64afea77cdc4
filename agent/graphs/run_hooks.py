"""What a run of a registered graph needs beyond LangGraph: how its input enters, and what its stop becomes.

The service runs every graph the same way (``api.runs.executor``): the input through ``RunHooks.admit``, the
graph's own streams through ``GraphStream``, then the stop through ``RunHooks.settle``. A graph a team brings
gets ``GRAPH_RUNS``: its input goes in as it is; a stop at interrupts waits for a ``Command(resume=...)`` with
the first interrupt shown as the approval (``approval_of``), and a finished run ends with its final state
(``run_completed``). The support agent has hooks of its own (``agent.support_runs``): its input is screened by
the guardrails, its nodes report themselves (node events with their spans' latencies, token deltas and cost,
written to LangGraph's ``custom`` stream), and a stop becomes its ``ChatResponse`` (``paused``, or
``interaction_logged`` then ``turn_completed``). Hooks are the one seam between the host and a graph with
conventions of its own: the host never imports the support agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from contracts import ChatResponse, InteractionLogged, InterruptInfo, PendingApproval, RunCompleted, TurnCompleted

if TYPE_CHECKING:
    from langgraph.types import Durability

    from agent.graphs.streaming import GraphOutcome

__all__ = (
    "GRAPH_RUNS",
    "Finish",
    "GraphRuns",
    "Pause",
    "RunContext",
    "RunHooks",
    "Settlement",
    "approval_for",
    "approval_of",
)

_SUMMARY_CHARS = 200
_ANY_INTERRUPT = "interrupt"


class RunContext(msgspec.Struct, frozen=True, kw_only=True):
    """The run a graph's input enters and a stop settles."""

    run_id: str
    thread_id: str
    subject: str | None = None
    """Who started the run (None with identity off)."""
    account_id: str | None = None
    """The account the starting subject acts for."""
    deciding: str | None = None
    """The approval a resume decides (None for a new run)."""
    decided_by: str | None = None
    """Who decided it."""


class Pause(msgspec.Struct, frozen=True, kw_only=True):
    """The run waits for a person: ``approval`` is what they are shown, ``interrupts`` what the graph waits at."""

    approval: PendingApproval
    interrupts: list[InterruptInfo]
    response: ChatResponse | None = None
    """The support agent's answer so far (``RunSnapshot.response`` while it waits)."""


class Finish(msgspec.Struct, frozen=True, kw_only=True):
    """The run ended: ``before`` are logged first, then ``terminal``."""

    terminal: TurnCompleted | RunCompleted
    before: list[InteractionLogged] = msgspec.field(default_factory=list)
    response: ChatResponse | None = None
    erase_account: str | None = None
    """An account the run deleted: its sessions are erased once the run has ended."""


Settlement = Pause | Finish


class RunHooks(Protocol):
    nodes_report_themselves: bool
    """Whether the graph's nodes write their own ``NodeStarted``/``NodeCompleted`` (and ``TokenDelta``,
    ``CostUpdated``) to the ``custom`` stream, so LangGraph's ``debug`` stream is not asked for."""
    durability: Durability | None
    """When the graph's checkpoints are written (None: LangGraph's default)."""

    async def admit(self, graph_input: Any, context: RunContext) -> Any:
        """What the graph is given for ``graph_input`` (the client's input, or a ``Command(resume=...)``)."""
        ...

    async def settle(self, outcome: GraphOutcome, context: RunContext) -> Settlement:
        """What the run's stop (``outcome``: paused at interrupts, or finished) becomes."""
        ...


class GraphRuns:
    """The hooks of any graph: input as it is, interrupts as approvals, the final state as the result."""

    nodes_report_themselves = False
    durability: Durability | None = None

    async def admit(self, graph_input: Any, context: RunContext) -> Any:
        return graph_input

    async def settle(self, outcome: GraphOutcome, context: RunContext) -> Settlement:
        if outcome.paused:
            interrupts = list(outcome.interrupts)
            return Pause(approval=approval_of(interrupts), interrupts=interrupts)
        return Finish(terminal=RunCompleted(output=outcome.values))


GRAPH_RUNS = GraphRuns()


def approval_of(interrupts: list[InterruptInfo]) -> PendingApproval:
    """The approval a person is shown for the first of ``interrupts`` (a resume answers them in order)."""
    return approval_for(interrupts[0])


def approval_for(interrupt: InterruptInfo) -> PendingApproval:
    """The approval a person is shown for ``interrupt``: a graph that asks for approval passes ``interrupt()`` a
    value naming ``action`` and ``summary`` (and, the support agent, its ``approval_id``); any other value is shown
    as its JSON text, and its action as ``interrupt``."""
    value = interrupt.value if isinstance(interrupt.value, dict) else {}
    action, summary, approval_id = value.get("action"), value.get("summary"), value.get("approval_id")
    return PendingApproval(
        approval_id=approval_id if isinstance(approval_id, str) and approval_id else interrupt.id,
        action=action if isinstance(action, str) and action else _ANY_INTERRUPT,
        summary=summary if isinstance(summary, str) and summary else _as_text(interrupt.value),
    )


def _as_text(value: object) -> str:
    text = value if isinstance(value, str) else msgspec.json.encode(value).decode()
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"
