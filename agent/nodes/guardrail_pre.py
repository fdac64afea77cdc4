"""``guardrail_pre``: refuse prompt injection, requests for secrets, pasted secrets and messages carrying PII.

The refusal names the reason in words a user can act on; the reason code and the rule family that matched
go to the ``guardrail.input`` span (``guardrail.reason``, ``guardrail.rule``, ``guardrail.layer``) and to
the node's summary, never into the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.guardrails import check_input
from agent.guardrails.model_check import InputScreen
from agent.instrument import NodeResult
from agent.nodes.usage import no_model_usage

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from agent.state import AgentState

__all__ = ("REFUSALS", "guardrail_pre")

REFUSALS = {
    "prompt_injection": "I can't follow instructions that try to change how I work. Ask me about Nimbus Cloud instead.",
    "secret_request": "I can't share system instructions, credentials or keys.",
    "secret_in_message": (
        "Please don't send keys or passwords here: anyone who sees this conversation could use them. If it is a "
        "real key or password, revoke or change it now (Settings > API > API keys, or Settings > Security > "
        "Password), then ask again without it."
    ),
    "pii_payment_card": "Please don't send card numbers here. Remove the card number and ask again.",
    "pii_national_id": "Please don't send national identity numbers here. Remove it and ask again.",
    "pii_bank_account": "Please don't send bank account numbers here. Remove it and ask again.",
    "check_unavailable": "I can't answer right now because a safety check is unavailable. Please try again shortly.",
}


async def guardrail_pre(state: AgentState, deps: AgentDeps) -> NodeResult:
    message = state["message"]
    with deps.tracer.start_as_current_span("guardrail.input") as span:
        verdict = check_input(message)
        if verdict.allowed and isinstance(deps.llm, InputScreen):
            with deps.tracer.start_as_current_span("guardrail.model_check") as check:
                verdict, outcome = await deps.llm.screen(message)
                check.set_attribute("guardrail.model_check.outcome", outcome)
        span.set_attribute("guardrail.allowed", verdict.allowed)
        for field in ("reason", "rule", "layer"):
            value = getattr(verdict, field)
            if value:
                span.set_attribute(f"guardrail.{field}", value)
    fresh_turn: dict[str, Any] = {
        "refusal_reason": verdict.reason,
        "passages": [],
        "answer": None,
        "cited": [],
        "proposal": None,
        "decision": None,
        "usage": no_model_usage(deps),
        "status": None,
    }
    if verdict.allowed:
        return NodeResult(update=fresh_turn, outcome="allowed", summary="message allowed")
    refusal = REFUSALS[verdict.reason or "prompt_injection"]
    return NodeResult(
        update={
            **fresh_turn,
            "answer": {"kind": "refusal", "text": refusal},
            "status": "refused",
            "history": [{"role": "user", "content": message}, {"role": "assistant", "content": refusal}],
        },
        outcome="refused",
        summary=f"refused: {verdict.reason} ({verdict.rule})",
    )
