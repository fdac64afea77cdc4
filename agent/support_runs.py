"""The support agent's run hooks (``agent.graphs.run_hooks.RunHooks``): how its runs differ from any graph's.

- Its input enters through the guardrails (``agent.intake``): a new run takes ``{"message": ...}`` or
  ``{"messages": [...]}`` (the newest user message is the turn) and the graph is given the screened, redacted
  message; a resume takes ``{"decision": "approve" | "reject", "comment": ...}`` deciding the approval the run
  waits at, its comment masked.
- Its nodes report themselves (``agent.instrument``, ``nodes/model_call.py``): node events carry their spans'
  latencies, and token deltas and cost are the contract's own events, so LangGraph's ``debug`` stream is not
  asked for; its checkpoint is written once, when a turn stops (``TURN_DURABILITY``).
- A stop is its ``ChatResponse``: a pause shows the proposal it waits on; a finished turn is written, redacted,
  to the interaction log (``interaction_logged``), then ends with ``turn_completed``; an approved
  ``delete_account`` names the account whose sessions the service then erases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from langgraph.types import Command

from agent.clock import format_timestamp
from agent.erasure import deleted_account
from agent.graphs.run_hooks import Finish, Pause
from agent.intake import admit_decision, admit_message, message_text, support_decision, support_message
from agent.response import chat_response, pending_approval
from agent.turns import TURN_DURABILITY
from contracts import InteractionLogged, TurnCompleted

if TYPE_CHECKING:
    from langgraph.types import Durability

    from agent.graphs.run_hooks import RunContext, Settlement
    from agent.graphs.streaming import GraphOutcome
    from agent.runtime import Agent
    from agent.state import AgentState, PrincipalState

__all__ = ("SupportRuns",)


class SupportRuns:
    nodes_report_themselves = True
    durability: Durability | None = TURN_DURABILITY

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    async def admit(self, graph_input: Any, context: RunContext) -> Any:
        """``ValueError`` for an input the support agent does not take (the routes check it first)."""
        if context.deciding is not None:
            decision = support_decision(graph_input.resume if isinstance(graph_input, Command) else graph_input)
            if decision is None:
                raise ValueError('the support agent is resumed with {"decision": "approve" | "reject", "comment"}')
            return Command(resume=admit_decision(context.deciding, *decision))
        message = support_message(graph_input)
        if message is None:
            raise ValueError('the support agent takes {"message": "..."} or {"messages": [...]}')
        principal: PrincipalState = {"subject": context.subject, "account_id": context.account_id}
        return await admit_message(
            self._agent.deps, message, run_id=context.run_id, session_id=context.thread_id, principal=principal
        )

    async def settle(self, outcome: GraphOutcome, context: RunContext) -> Settlement:
        state = cast("AgentState", outcome.state)
        if outcome.paused:
            approval = pending_approval(state)
            assert approval is not None, "the graph pauses only for a proposal"
            return Pause(
                approval=approval, interrupts=list(outcome.interrupts), response=chat_response(state, paused=True)
            )
        response = chat_response(state, paused=False)
        response.decided_by = context.decided_by  # the interaction log records who decided
        deps = self._agent.deps
        interaction_id = await self._agent.interactions.record(
            deps.ids.new("int"), message_text(state), response, format_timestamp(deps.clock.now_ns())
        )
        return Finish(
            before=[InteractionLogged(interaction_id=interaction_id)],
            terminal=TurnCompleted(response=response),
            response=response,
            erase_account=deleted_account(state),
        )
