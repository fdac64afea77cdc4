"""The graph's state. Plain dicts and lists only, so the checkpointer can store every value."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

__all__ = ("AgentState", "PassageState", "ProposalState", "TraceState", "keep_current_run")


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
    message: str
    # the session's conversation, shared by its turns
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
