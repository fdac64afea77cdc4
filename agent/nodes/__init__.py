"""The six nodes of the agent graph, each an ``async`` function of the state and the dependencies."""

from __future__ import annotations

from agent.nodes.execute_action import execute_action
from agent.nodes.generate_answer import generate_answer
from agent.nodes.guardrail_post import guardrail_post
from agent.nodes.guardrail_pre import guardrail_pre
from agent.nodes.human_approval import human_approval
from agent.nodes.retrieve_context import retrieve_context

__all__ = (
    "execute_action",
    "generate_answer",
    "guardrail_post",
    "guardrail_pre",
    "human_approval",
    "retrieve_context",
)
