"""``guardrail_post``: check the answer before it leaves (citations point at retrieved passages, no leaks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.guardrails import check_output
from agent.guardrails.refusals import BLOCKED_ANSWER
from agent.history import exchange
from agent.instrument import NodeResult
from agent.intake import message_text

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from agent.state import AgentState

__all__ = ("guardrail_post",)


async def guardrail_post(state: AgentState, deps: AgentDeps) -> NodeResult:
    answer = state["answer"]
    assert answer is not None, "guardrail_post runs only after an answer"
    retrieved = [p["doc_id"] for p in state.get("passages", [])]
    with deps.tracer.start_as_current_span("guardrail.output") as span:
        verdict = check_output(answer["text"], state.get("cited", []), retrieved)
        span.set_attribute("guardrail.outcome", verdict.outcome)
        if verdict.reason:
            span.set_attribute("guardrail.reason", verdict.reason)
    if verdict.outcome == "blocked":
        answer = {"kind": "refusal", "text": BLOCKED_ANSWER}
        status = "refused"
    else:
        status = "rejected" if answer["kind"] == "action_rejected" else "completed"
    history = exchange(message_text(state), answer["text"], refused=verdict.reason if status == "refused" else None)
    summary = verdict.outcome.replace("_", " ") + (f": {verdict.reason}" if verdict.reason else "")
    return NodeResult(
        update={"answer": answer, "cited": list(verdict.citations), "status": status, "history": history},
        outcome=verdict.outcome,
        summary=summary,
    )
