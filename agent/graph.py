"""The agent graph: six nodes, their conditional edges, compiled with a checkpointer.

guardrail_pre ─┬─ refused ──────────────────────────────────────────────────────────▶ END
               └▶ retrieve_context ▶ generate_answer ─┬─ answer ──────────▶ guardrail_post ▶ END
                                                      └▶ human_approval ─┬─ reject ─▶ ┘
                                                                         └▶ execute_action ▶ ┘
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from langgraph.graph import END, START, StateGraph

from agent import nodes
from agent.instrument import instrumented
from agent.state import AgentState

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from agent.deps import AgentDeps

    AgentGraph: TypeAlias = CompiledStateGraph[AgentState, None, AgentState, AgentState]

__all__ = ("NODE_LABELS", "NODE_ROLES", "build_graph")

NODE_LABELS = {
    "guardrail_pre": "Input guardrail",
    "retrieve_context": "Retrieve context",
    "generate_answer": "Generate answer",
    "human_approval": "Human approval",
    "execute_action": "Execute action",
    "guardrail_post": "Output guardrail",
}

NODE_ROLES = {"human_approval": "approval", "execute_action": "action"}
"""What a chat UI reads from these nodes (``role`` metadata, ``api.projection``): whether a person approved, and
what the approved action came to."""


def after_guardrail_pre(state: AgentState) -> str:
    return END if state.get("status") == "refused" else "retrieve_context"


def after_generate_answer(state: AgentState) -> Literal["human_approval", "guardrail_post"]:
    return "human_approval" if state.get("proposal") else "guardrail_post"


def after_human_approval(state: AgentState) -> Literal["execute_action", "guardrail_post"]:
    decision = state.get("decision") or {}
    return "execute_action" if decision.get("decision") == "approve" else "guardrail_post"


def build_graph(deps: AgentDeps, checkpointer: BaseCheckpointSaver[str] | None = None) -> AgentGraph:
    builder = StateGraph(AgentState)
    for name, label in NODE_LABELS.items():
        metadata = {"label": label, **({"role": NODE_ROLES[name]} if name in NODE_ROLES else {})}
        builder.add_node(name, instrumented(name, getattr(nodes, name), deps), metadata=metadata)
    builder.add_edge(START, "guardrail_pre")
    builder.add_conditional_edges(
        "guardrail_pre", after_guardrail_pre, {"retrieve_context": "retrieve_context", END: END}
    )
    builder.add_edge("retrieve_context", "generate_answer")
    builder.add_conditional_edges(
        "generate_answer",
        after_generate_answer,
        {"human_approval": "human_approval", "guardrail_post": "guardrail_post"},
    )
    builder.add_conditional_edges(
        "human_approval",
        after_human_approval,
        {"execute_action": "execute_action", "guardrail_post": "guardrail_post"},
    )
    builder.add_edge("execute_action", "guardrail_post")
    builder.add_edge("guardrail_post", END)
    return builder.compile(checkpointer=checkpointer, name="support_agent")
