"""What a person's chat UI shows of a run, whatever the protocol: the events of the shared projection.

AG-UI and the AI SDK's UI message stream are both made from these (``api.agui``, ``api.ai_sdk``); each
protocol's translator is a mapping from them, nothing more.
"""

from __future__ import annotations

from typing import Any

import msgspec

from contracts import Citation, PendingApproval

__all__ = (
    "ActionResult",
    "ApprovalAnswered",
    "ApprovalRequested",
    "Cancelled",
    "Data",
    "Failed",
    "Finished",
    "RunOpened",
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


class _Event(msgspec.Struct, frozen=True, kw_only=True):
    at: int
    """When it happened: the envelope's time, milliseconds since the Unix epoch."""


class RunOpened(_Event, frozen=True):
    run_id: str


class _OfStep(_Event, frozen=True):
    name: str
    step: int


class StepStarted(_OfStep, frozen=True):
    """A node started."""


class StepFinished(_OfStep, frozen=True):
    details: dict[str, Any] | None = None
    """``latency_ms``, ``outcome``, ``summary`` of the node; None for a step closed because the run stopped."""


class _OfMessage(_Event, frozen=True):
    message_id: str


class TextStarted(_OfMessage, frozen=True):
    """A text message opened."""


class TextDelta(_OfMessage, frozen=True):
    delta: str


class TextEnded(_OfMessage, frozen=True):
    """The text message closed."""


class _OfToolCall(_Event, frozen=True):
    tool_call_id: str


class ToolCallStarted(_OfToolCall, frozen=True):
    name: str
    message_id: str


class ToolCallArgs(_OfToolCall, frozen=True):
    delta: str


class ToolCallEnded(_OfToolCall, frozen=True):
    name: str
    args: Any
    """The call's arguments, parsed (what the streamed ``ToolCallArgs`` make)."""


class ToolResult(_OfToolCall, frozen=True):
    message_id: str
    content: str


class StateSnapshot(_Event, frozen=True):
    values: Any


class Data(_Event, frozen=True):
    """Something to show beside the conversation: a contract event's data (``graph_topology``, ``cost_updated``,
    ``interaction_logged``, ``snapshot``) or a graph's own ``custom`` write."""

    name: str
    value: Any


class Usage(_Event, frozen=True):
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class ApprovalRequested(_Event, frozen=True):
    """The run waits for a person. ``ends``: the response ends here (not a replay that went past it)."""

    run_id: str
    approval: PendingApproval
    value: Any
    """The value the graph's ``interrupt()`` was given (None for the support agent's turns)."""
    tool_input: Any
    """What the action is to be done with: the interrupt's ``args``, else its summary."""
    tool_call_id: str | None
    """The model's call of the tool named by the action, when the run made one (the call the pause interrupted)."""
    ends: bool


class ApprovalAnswered(_Event, frozen=True):
    approved: bool


class ActionResult(_Event, frozen=True):
    """What the decided action came to: its node's outcome and summary."""

    outcome: str
    summary: str


class Finished(_Event, frozen=True):
    result: Any
    """The run's result: the support agent's ``ChatResponse``, or a graph's final state."""
    status: str
    """``completed``, or the support agent's ``refused``, ``rejected``."""
    answer: str | None = None
    """The support agent's answer text, to say again if it was not the text streamed (a refusal, a result)."""
    citations: list[Citation] = msgspec.field(default_factory=list)
    usage: Any = None
    human_wait_ms: float | None = None


class _Stopped(_Event, frozen=True):
    code: str
    message: str


class Failed(_Stopped, frozen=True):
    retryable: bool


class Cancelled(_Stopped, frozen=True):
    """The run was cancelled."""


UiEvent = (
    RunOpened
    | StepStarted
    | StepFinished
    | TextStarted
    | TextDelta
    | TextEnded
    | ToolCallStarted
    | ToolCallArgs
    | ToolCallEnded
    | ToolResult
    | StateSnapshot
    | Data
    | Usage
    | ApprovalRequested
    | ApprovalAnswered
    | ActionResult
    | Finished
    | Failed
    | Cancelled
)
