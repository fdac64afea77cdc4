"""The graph's state. Plain dicts and lists only, so the checkpointer can store every value."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict  # pydantic (LangGraph's schemas of a graph) reads only this one on 3.11

__all__ = (
    "AgentState",
    "MessageState",
    "PassageState",
    "PrincipalState",
    "ProposalState",
    "ScreenState",
    "TraceState",
    "keep_current_run",
)


class TraceState(TypedDict):
    run_id: str
    node: str
    latency_ms: float
    outcome: str
    summary: str


class PassageState(TypedDict):
    doc_id: str
    title: str
    text: str
    snippet: str
    score: float


class ProposalState(TypedDict):
    approval_id: str
    action: str
    arguments: dict[str, Any]
    summary: str


class ScreenState(TypedDict):
    """The input guardrail's verdict on a message, reached before the message entered the graph."""

    allowed: bool
    reason: str | None
    rule: str | None
    layer: str | None
    model_check: str | None
    """The model-based check's outcome (``allowed``, ``refused``, ``failed_open``, ``failed_closed``), or None
    when it did not run."""


class MessageState(TypedDict):
    """A turn's message as the graph holds it (``agent.intake`` builds it): never the text as it was sent.

    A dict rather than a string on purpose: the PostgreSQL saver keeps strings inline in its JSONB column,
    where its serializer (and so its encryption) never sees them.
    """

    text: str
    """The message with card numbers, national ids, bank accounts and secrets masked; for a refused message,
    a placeholder naming the reason."""
    screen: ScreenState


class PrincipalState(TypedDict):
    """Who asked for the turn, as far as the agent needs to know: what "my account" means."""

    subject: str | None
    account_id: str | None


def keep_current_run(old: list[TraceState], new: list[TraceState]) -> list[TraceState]:
    """Append trace entries, dropping those of earlier runs once a new run writes its first one."""
    if not new:
        return old
    run_id = new[-1]["run_id"]
    return [entry for entry in old if entry["run_id"] == run_id] + new


class AgentState(TypedDict, total=False):
    # set by the caller for every turn
    run_id: str
    session_id: str
    message: MessageState
    principal: PrincipalState
    # the session's conversation, shared by its turns (``agent.history``)
    history: Annotated[list[dict[str, str]], operator.add]
    # per turn; guardrail_pre resets them
    refusal_reason: str | None
    passages: list[PassageState]
    answer: dict[str, str] | None
    cited: list[str]
    proposal: ProposalState | None
    decision: dict[str, Any] | None
    usage: dict[str, Any] | None
    status: str | None
    trace: Annotated[list[TraceState], keep_current_run]
