"""``execute_action``: carry out the approved action against the ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import gen_ai
from agent.clock import format_timestamp
from agent.instrument import NodeResult

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from agent.state import AgentState

__all__ = ("execute_action",)


async def execute_action(state: AgentState, deps: AgentDeps) -> NodeResult:
    proposal = state["proposal"]
    assert proposal is not None, "execute_action runs only after an approved proposal"
    action = deps.actions.get(proposal["action"])
    assert action is not None, "proposals name registered actions only"
    tool = {gen_ai.OPERATION_NAME: "execute_tool", gen_ai.TOOL_NAME: action.name, gen_ai.TOOL_TYPE: "function"}
    with deps.tracer.start_as_current_span(f"execute_tool {action.name}", attributes=tool) as span:
        span.set_attribute(gen_ai.TOOL_CALL_ID, proposal["approval_id"])
        span.set_attribute("action.approval_id", proposal["approval_id"])
        result = await action.execute(
            proposal["arguments"], proposal["approval_id"], format_timestamp(deps.clock.now_ns())
        )
        span.set_attribute("action.outcome", result.outcome)
    return NodeResult(
        update={"answer": {"kind": "action_result", "text": result.text}},
        outcome=result.outcome,
        summary=f"{proposal['action']}: {result.outcome.replace('_', ' ')}",
    )
