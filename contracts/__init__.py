"""The wire contract (v1) as msgspec Structs: the single source of validation, OpenAPI and event docs.

This package does no I/O and imports nothing else of the project.
"""

from __future__ import annotations

from contracts.events import (
    ENVELOPE_VERSION,
    TERMINAL_EVENT_TYPES,
    CostUpdated,
    CostUpdatedEvent,
    Envelope,
    ErrorEvent,
    ErrorInfo,
    EventType,
    GraphTopology,
    GraphTopologyEvent,
    InteractionLogged,
    InteractionLoggedEvent,
    NodeCompleted,
    NodeCompletedEvent,
    NodeStarted,
    NodeStartedEvent,
    Paused,
    PausedEvent,
    Snapshot,
    SnapshotEvent,
    TokenDelta,
    TokenDeltaEvent,
    TopologyEdge,
    TopologyNode,
    TurnCompleted,
    TurnCompletedEvent,
)
from contracts.health import Health
from contracts.ids import RunId, SessionId
from contracts.knowledge import KnowledgeDocument
from contracts.problem import PROBLEM_MEDIA_TYPE, FieldError, Problem, problem_type
from contracts.requests import ApprovalDecision, ChatRequest, ResumeRequest
from contracts.responses import (
    Answer,
    AnswerKind,
    ChatResponse,
    Citation,
    NodeName,
    PendingApproval,
    TraceEntry,
    TurnStatus,
    Usage,
)
from contracts.runs import RunError, RunSnapshot, RunStatus

__all__ = (
    "ENVELOPE_VERSION",
    "PROBLEM_MEDIA_TYPE",
    "TERMINAL_EVENT_TYPES",
    "Answer",
    "AnswerKind",
    "ApprovalDecision",
    "ChatRequest",
    "ChatResponse",
    "Citation",
    "CostUpdated",
    "CostUpdatedEvent",
    "Envelope",
    "ErrorEvent",
    "ErrorInfo",
    "EventType",
    "FieldError",
    "GraphTopology",
    "GraphTopologyEvent",
    "Health",
    "InteractionLogged",
    "InteractionLoggedEvent",
    "KnowledgeDocument",
    "NodeCompleted",
    "NodeCompletedEvent",
    "NodeName",
    "NodeStarted",
    "NodeStartedEvent",
    "Paused",
    "PausedEvent",
    "PendingApproval",
    "Problem",
    "ResumeRequest",
    "RunError",
    "RunId",
    "RunSnapshot",
    "RunStatus",
    "SessionId",
    "Snapshot",
    "SnapshotEvent",
    "TokenDelta",
    "TokenDeltaEvent",
    "TopologyEdge",
    "TopologyNode",
    "TraceEntry",
    "TurnCompleted",
    "TurnCompletedEvent",
    "TurnStatus",
    "Usage",
    "problem_type",
)
