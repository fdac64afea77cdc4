"""The LangGraph agent: guardrails, retrieval, a streamed model answer, human approval, actions.

What the service (``api``) uses of the agent is exported here and by the public subpackages (``agent.stores``,
``agent.llm``, ``agent.knowledge``, ``agent.guardrails``, ``agent.evaluation``, ``agent.graphs``); the rest is
the agent's own, free to change. tests/test_architecture.py holds the service to that.
"""

from __future__ import annotations

from agent.clock import (
    Clock,
    IdFactory,
    RandomIds,
    SequentialIds,
    SteppingClock,
    SystemClock,
    format_timestamp,
)
from agent.config import AgentConfig, ConfigError, StubConfig, read_float, read_optional_int, redact_url
from agent.erasure import deleted_account
from agent.errors import AgentError
from agent.graph import NODE_LABELS, NODE_ROLES, build_graph
from agent.graph_tracing import for_every_task
from agent.intake import admit, carries_personal_data, message_text, support_decision, support_message
from agent.log_privacy import configured_secrets, install_log_redaction
from agent.response import chat_response, pending_approval
from agent.runtime import Agent, open_agent
from agent.sealing import Sealer, is_sealed, key_id, place
from agent.state import AgentState
from agent.support_runs import SupportRuns
from agent.turns import TURN_DURABILITY, resume_turn, run_turn, thread_config

__all__ = (
    "NODE_LABELS",
    "NODE_ROLES",
    "TURN_DURABILITY",
    "Agent",
    "AgentConfig",
    "AgentError",
    "AgentState",
    "Clock",
    "ConfigError",
    "IdFactory",
    "RandomIds",
    "Sealer",
    "SequentialIds",
    "SteppingClock",
    "StubConfig",
    "SupportRuns",
    "SystemClock",
    "admit",
    "build_graph",
    "carries_personal_data",
    "chat_response",
    "configured_secrets",
    "deleted_account",
    "for_every_task",
    "format_timestamp",
    "install_log_redaction",
    "is_sealed",
    "key_id",
    "message_text",
    "open_agent",
    "pending_approval",
    "place",
    "read_float",
    "read_optional_int",
    "redact_url",
    "resume_turn",
    "run_turn",
    "support_decision",
    "support_message",
    "thread_config",
)
