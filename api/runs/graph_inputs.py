"""What a run of a registered graph is given: its LangGraph config, and, for the support agent, its input
screened as a ``/chat`` turn's is (the guardrails see it first; a decision's comment is masked).

Through the Agent Protocol the support agent takes ``{"message": "..."}`` or ``{"messages": [...]}`` (the
newest user message is the turn) and is resumed with ``{"decision": "approve" | "reject", "comment": ...}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent import admit, support_decision, support_message
from api.runs.run_options import client_config, without_reserved

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain_core.runnables import RunnableConfig

    from agent import Agent
    from api.auth import Principal
    from api.runs.log.records import GraphRun
    from api.runs.run import Run

__all__ = ("graph_run_config", "support_admission")


def graph_run_config(run: Run, options: GraphRun) -> RunnableConfig:
    """The run's config: what the client may set of it (``api.runs.run_options``), with the thread, the run and
    the graph named the way the Agent Server names them (``configurable`` and ``metadata``)."""
    config = client_config(options.config)
    names = {
        "thread_id": run.session_id,
        "run_id": run.run_id,
        "graph_id": options.graph_id,
        "assistant_id": options.assistant_id,
    }
    config["configurable"] = {**config.get("configurable", {}), **names}
    config["metadata"] = {**config.get("metadata", {}), **without_reserved(options.metadata), **names}
    return config  # type: ignore[return-value]  # a RunnableConfig is this dict


def support_admission(
    agent: Agent, run: Run, principal: Principal, *, approval_id: str | None
) -> Callable[[Any], Awaitable[Any]]:
    """How the support agent's input enters its graph: through the guardrails, as a ``/chat`` turn's; with
    ``approval_id``, a ``Command(resume=...)`` deciding that approval."""

    async def admitted(graph_input: Any) -> Any:
        if approval_id is not None:
            decision = support_decision(graph_input.resume)
            assert decision is not None, "the route checks the decision"
            turn: dict[str, Any] = {"approval_id": approval_id, "decision": decision[0], "comment": decision[1]}
        else:
            turn = {
                "run_id": run.run_id,
                "session_id": run.session_id,
                "message": support_message(graph_input),
                "principal": {"subject": principal.subject, "account_id": principal.account_id},
            }
        return await admit(agent.deps, turn, resume=approval_id is not None)

    return admitted
