"""The LangGraph agent: guardrails, retrieval, a streamed model answer, human approval, actions."""

from __future__ import annotations

from agent.config import AgentConfig, ConfigError
from agent.graph import NODE_LABELS, build_graph
from agent.runtime import Agent, open_agent
from agent.turns import resume_turn, run_turn

__all__ = (
    "NODE_LABELS",
    "Agent",
    "AgentConfig",
    "ConfigError",
    "build_graph",
    "open_agent",
    "resume_turn",
    "run_turn",
)
