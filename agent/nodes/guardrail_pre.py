"""``guardrail_pre``: apply the input guardrail's verdict on the turn's message.

The verdict is reached before the message enters the graph (``agent.intake``: prompt injection, requests
for secrets, pasted secrets, personal data, and the optional model-based check), so that a refused message
is never stored; this node applies it. The refusal names the reason in words a user can act on; the reason
code and the rule family that matched go to the ``guardrail.input`` span (``guardrail.reason``,
``guardrail.rule``, ``guardrail.layer``) and to the node's summary, never into the answer. A refused turn
enters the history as a placeholder, marked refused, so no later prompt carries it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.guardrails.refusals import REFUSALS
from agent.history import exchange
from agent.instrument import NodeResult
from agent.nodes.usage import no_model_usage

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from agent.state import AgentState

__all__ = ("guardrail_pre",)


async def guardrail_pre(state: AgentState, deps: AgentDeps) -> NodeResult:
    message: Any = state["message"]
    if not isinstance(message, dict):
        raise TypeError("the graph takes a turn's message from agent.intake.admit_message, never as sent")
    screen = state["message"]["screen"]
    with deps.tracer.start_as_current_span("guardrail.input") as span:
        span.set_attribute("guardrail.allowed", screen["allowed"])
        for name, value in (
            ("guardrail.reason", screen["reason"]),
            ("guardrail.rule", screen["rule"]),
            ("guardrail.layer", screen["layer"]),
            ("guardrail.model_check.outcome", screen["model_check"]),
        ):
            if value:
                span.set_attribute(name, value)
    fresh_turn: dict[str, Any] = {
        "refusal_reason": screen["reason"],
        "passages": [],
        "answer": None,
        "cited": [],
        "proposal": None,
        "decision": None,
        "usage": no_model_usage(deps),
        "status": None,
    }
    if screen["allowed"]:
        return NodeResult(update=fresh_turn, outcome="allowed", summary="message allowed")
    reason = screen["reason"] or "prompt_injection"
    refusal = REFUSALS[reason]
    return NodeResult(
        update={
            **fresh_turn,
            "answer": {"kind": "refusal", "text": refusal},
            "status": "refused",
            "history": exchange(message["text"], refusal, refused=reason),
        },
        outcome="refused",
        summary=f"refused: {reason} ({screen['rule']})",
    )
