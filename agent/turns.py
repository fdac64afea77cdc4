"""Running a turn directly on the graph (no HTTP, no event log): for ``harness ask`` and the evals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from agent.intake import admit_decision, admit_message
from agent.response import chat_response

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Durability

    from agent.runtime import Agent
    from contracts import ApprovalDecision, ChatResponse

__all__ = ("TURN_DURABILITY", "resume_turn", "run_turn", "thread_config")

TURN_DURABILITY: Durability = "exit"
"""A turn's checkpoint is written when the turn stops (it pauses for approval, completes or fails), not after
every superstep: nothing reads a turn's checkpoints before it stops, since a run whose instance dies mid-turn
ends with an error and is never continued from the middle, and a pause is a stop. One write per turn instead of
one per node is what keeps a turn on PostgreSQL near the embedded store's cost (ADR 30)."""


def thread_config(session_id: str) -> RunnableConfig:
    """A session is a LangGraph thread."""
    return {"configurable": {"thread_id": session_id}}


async def run_turn(agent: Agent, message: str, *, session_id: str, run_id: str) -> ChatResponse:
    turn = await admit_message(agent.deps, message, run_id=run_id, session_id=session_id)
    output = await agent.graph.ainvoke(turn, thread_config(session_id), version="v2", durability=TURN_DURABILITY)
    return chat_response(output.value, paused=bool(output.interrupts))


async def resume_turn(
    agent: Agent, *, session_id: str, approval_id: str, decision: ApprovalDecision, comment: str | None = None
) -> ChatResponse:
    resume: Command[Any] = Command(resume=admit_decision(approval_id, decision, comment))
    output = await agent.graph.ainvoke(resume, thread_config(session_id), version="v2", durability=TURN_DURABILITY)
    return chat_response(output.value, paused=bool(output.interrupts))
