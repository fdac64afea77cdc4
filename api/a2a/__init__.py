"""A2A 1.0 (the a2aproject specification) for every registered graph: agent cards, and the JSON-RPC methods on the
same durable runs as every other protocol; a task is a run, its context the run's thread. docs/a2a.md."""

from __future__ import annotations

from api.a2a.calls import A2A_MODES, A2ACalls
from api.a2a.card import PROTOCOL_VERSION, SCHEMAS_EXTENSION, agent_card
from api.a2a.errors import A2AError, InternalError, VersionNotSupported, from_refusal
from api.a2a.jsonrpc import METHODS, error_body, read_call
from api.a2a.task import TaskProjection

__all__ = (
    "A2A_MODES",
    "METHODS",
    "PROTOCOL_VERSION",
    "SCHEMAS_EXTENSION",
    "A2ACalls",
    "A2AError",
    "InternalError",
    "TaskProjection",
    "VersionNotSupported",
    "agent_card",
    "error_body",
    "from_refusal",
    "read_call",
)
