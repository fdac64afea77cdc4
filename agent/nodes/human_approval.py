"""``human_approval``: pause the run until a person approves or rejects the proposed action.

LangGraph's ``interrupt()`` stores the pause in the checkpoint, so it survives a restart; on resume the
node runs again and ``interrupt()`` returns the person's decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.types import interrupt

from agent.instrument import NodeResult

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from agent.state import AgentState

__all__ = ("human_approval",)


async def human_approval(state: AgentState, deps: AgentDeps) -> NodeResult:
    proposal = state["proposal"]
    assert proposal is not None, "human_approval runs only after a proposal"
    decision: dict[str, Any] = interrupt(
        {"approval_id": proposal["approval_id"], "action": proposal["action"], "summary": proposal["summary"]}
    )
    with deps.tracer.start_as_current_span("guardrail.approval") as span:
        span.set_attribute("approval.action", proposal["action"])
        span.set_attribute("approval.decision", decision["decision"])
    if decision["decision"] == "approve":
        return NodeResult(update={"decision": decision}, outcome="approved", summary=f"approved: {proposal['summary']}")
    comment = decision.get("comment")
    text = f"Not done: a reviewer rejected \u201c{proposal['summary']}\u201d." + (
        f" Note: {comment}" if comment else ""
    )
    return NodeResult(
        update={"decision": decision, "answer": {"kind": "action_rejected", "text": text}},
        outcome="rejected",
        summary=f"rejected: {proposal['summary']}",
    )
