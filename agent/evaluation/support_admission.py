"""How a support case's sends enter the support agent's graph: as a run of the service's ``support`` graph
enters it.

A message goes through ``agent.intake`` first: the input guardrail's rules (and the model-based check, when
the model client has one) judge it there, and the graph is given only the redacted message with the verdict,
which ``guardrail_pre`` applies. A resume decides the approval the run waits at, its comment masked. The
eval has no caller, so no principal: "my account" names no account, as in ``harness ask``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from agent.evaluation.graph_runner import eval_id
from agent.graphs.registry import SUPPORT_DESCRIPTION, SUPPORT_GRAPH_ID, RegisteredGraph
from agent.intake import admit, support_decision, support_message

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.runtime import Agent
    from contracts import InterruptInfo

__all__ = ("SupportAdmission", "support_graph")


def support_graph(agent: Agent) -> RegisteredGraph:
    """The agent's graph as the registry registers it, ``support``."""
    return RegisteredGraph(SUPPORT_GRAPH_ID, agent.graph, description=SUPPORT_DESCRIPTION)


class SupportAdmission:
    """The admission of one case's sends on ``thread_id``: each message a run of its own, named after it."""

    def __init__(self, agent: Agent, thread_id: str) -> None:
        self._agent = agent
        self._thread_id = thread_id
        self._messages = 0

    async def __call__(self, sent: Any, waiting: Sequence[InterruptInfo]) -> Any:
        """The graph's input for ``sent``, an input or a ``Command(resume=...)`` answering ``waiting``."""
        if isinstance(sent, Command):
            decision = support_decision(sent.resume)
            if decision is None or not waiting:
                raise ValueError(f"nothing to decide with {sent.resume!r}: the support agent waits at no approval")
            turn: dict[str, Any] = {
                "approval_id": _approval_id(waiting[0]),
                "decision": decision[0],
                "comment": decision[1],
            }
            return await admit(self._agent.deps, turn, resume=True)
        message = support_message(sent)
        if message is None:
            raise ValueError("the support agent takes {'messages': [...]} or {'message': ...} with a user message")
        self._messages += 1
        turn = {
            "run_id": eval_id(self._thread_id, str(self._messages)),
            "session_id": self._thread_id,
            "message": message,
        }
        return await admit(self._agent.deps, turn, resume=False)


def _approval_id(interrupt: InterruptInfo) -> str:
    """The approval an interrupt of ``human_approval`` waits for (its value names it, as the service reads it)."""
    value = interrupt.value if isinstance(interrupt.value, dict) else {}
    approval_id = value.get("approval_id")
    return approval_id if isinstance(approval_id, str) and approval_id else interrupt.id
