"""One projection of a run's events for the chat UIs of every protocol (AG-UI, the AI SDK): what a person sees.

``RunProjection`` turns a run's envelopes, of any graph, into ``UiEvent``s: steps, text messages, tool calls
and their results, state snapshots, data, an approval asked for and answered, and one end. Each protocol's
translator maps those, and only those, to its wire events (``api.agui.translate``, ``api.ai_sdk.translate``).
"""

from __future__ import annotations

from api.projection._events import (
    ActionResult,
    ApprovalAnswered,
    ApprovalRequested,
    Cancelled,
    Data,
    Failed,
    Finished,
    RunOpened,
    StateSnapshot,
    StepFinished,
    StepStarted,
    TextDelta,
    TextEnded,
    TextStarted,
    ToolCallArgs,
    ToolCallEnded,
    ToolCallStarted,
    ToolResult,
    UiEvent,
    Usage,
)
from api.projection._projector import ACTION_ROLE, APPROVAL_ROLE, RunProjection

__all__ = (
    "ACTION_ROLE",
    "APPROVAL_ROLE",
    "ActionResult",
    "ApprovalAnswered",
    "ApprovalRequested",
    "Cancelled",
    "Data",
    "Failed",
    "Finished",
    "RunOpened",
    "RunProjection",
    "StateSnapshot",
    "StepFinished",
    "StepStarted",
    "TextDelta",
    "TextEnded",
    "TextStarted",
    "ToolCallArgs",
    "ToolCallEnded",
    "ToolCallStarted",
    "ToolResult",
    "UiEvent",
    "Usage",
)
