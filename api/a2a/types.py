"""A2A 1.0's messages as they travel over JSON-RPC: the protocol buffers of the specification (``lf.a2a.v1``) in
their canonical JSON form (camelCase names, enums by name, empty fields left out), as msgspec Structs.

The official SDK's types are those protocol buffers; the service speaks their JSON with Structs instead, so that
what it reads is checked as every other request body is and the service does not depend on protobuf and
google-api-core. tests/api/a2a/test_types.py parses what these encode with the SDK's own types, strictly.
Fields the service does not read (push notification configs, extensions, tenants) are accepted and ignored, as
the specification asks of unknown fields.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = (
    "CANCELED",
    "COMPLETED",
    "FAILED",
    "INPUT_REQUIRED",
    "REJECTED",
    "SETTLED_STATES",
    "SUBMITTED",
    "TERMINAL_STATES",
    "WORKING",
    "AgentCapabilities",
    "AgentCard",
    "AgentExtension",
    "AgentInterface",
    "AgentSkill",
    "Artifact",
    "CancelTaskRequest",
    "GetTaskRequest",
    "HttpAuthSecurityScheme",
    "Message",
    "Part",
    "SecurityScheme",
    "SendMessageConfiguration",
    "SendMessageRequest",
    "SendMessageResponse",
    "StreamResponse",
    "SubscribeToTaskRequest",
    "Task",
    "TaskArtifactUpdateEvent",
    "TaskState",
    "TaskStatus",
    "TaskStatusUpdateEvent",
)

TaskState = Literal[
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
]
SUBMITTED: TaskState = "TASK_STATE_SUBMITTED"
WORKING: TaskState = "TASK_STATE_WORKING"
COMPLETED: TaskState = "TASK_STATE_COMPLETED"
FAILED: TaskState = "TASK_STATE_FAILED"
CANCELED: TaskState = "TASK_STATE_CANCELED"
INPUT_REQUIRED: TaskState = "TASK_STATE_INPUT_REQUIRED"
REJECTED: TaskState = "TASK_STATE_REJECTED"
TERMINAL_STATES: frozenset[str] = frozenset({COMPLETED, FAILED, CANCELED, REJECTED})
SETTLED_STATES: frozenset[str] = TERMINAL_STATES | {INPUT_REQUIRED}
"""Where a blocking ``SendMessage`` answers and a stream ends: the task ended, or waits for its client."""


class _Wire(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    pass


class Part(_Wire):
    """One piece of content: exactly one of ``text``, ``raw`` (base64), ``url`` or ``data`` (any JSON value)."""

    text: str | None = None
    raw: str | None = None
    url: str | None = None
    data: Any = msgspec.UNSET
    metadata: dict[str, Any] | None = None
    filename: str = ""
    media_type: str = ""


class Message(_Wire):
    message_id: str
    context_id: str = ""
    task_id: str = ""
    role: str = "ROLE_UNSPECIFIED"
    """``ROLE_USER`` (the client) or ``ROLE_AGENT`` (the service)."""
    parts: list[Part] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] | None = None
    extensions: list[str] = msgspec.field(default_factory=list)
    reference_task_ids: list[str] = msgspec.field(default_factory=list)


class TaskStatus(_Wire):
    state: TaskState
    message: Message | None = None
    timestamp: str | None = None
    """RFC 3339, UTC."""


class Artifact(_Wire):
    artifact_id: str
    name: str = ""
    description: str = ""
    parts: list[Part] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] | None = None


class Task(_Wire):
    id: str
    """The run's id."""
    context_id: str
    """The thread's id."""
    status: TaskStatus
    artifacts: list[Artifact] = msgspec.field(default_factory=list)
    history: list[Message] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(_Wire):
    task_id: str
    context_id: str
    status: TaskStatus
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(_Wire):
    task_id: str
    context_id: str
    artifact: Artifact
    append: bool = False
    last_chunk: bool = False
    metadata: dict[str, Any] | None = None


class StreamResponse(_Wire):
    """One event of ``SendStreamingMessage`` and ``SubscribeToTask``: exactly one field set."""

    task: Task | None = None
    message: Message | None = None
    status_update: TaskStatusUpdateEvent | None = None
    artifact_update: TaskArtifactUpdateEvent | None = None


class SendMessageResponse(_Wire):
    task: Task | None = None
    message: Message | None = None


# --- requests ---


class SendMessageConfiguration(_Wire):
    accepted_output_modes: list[str] = msgspec.field(default_factory=list)
    task_push_notification_config: dict[str, Any] | None = None
    history_length: int | None = None
    return_immediately: bool = False


class SendMessageRequest(_Wire):
    message: Message
    configuration: SendMessageConfiguration | None = None
    metadata: dict[str, Any] | None = None
    tenant: str = ""


class GetTaskRequest(_Wire):
    id: str
    history_length: int | None = None
    tenant: str = ""


class CancelTaskRequest(_Wire):
    id: str
    metadata: dict[str, Any] | None = None
    tenant: str = ""


class SubscribeToTaskRequest(_Wire):
    id: str
    tenant: str = ""


# --- the agent card ---


class AgentInterface(_Wire):
    url: str
    protocol_binding: str
    protocol_version: str


class AgentExtension(_Wire):
    uri: str
    description: str = ""
    required: bool = False
    params: dict[str, Any] | None = None


class AgentCapabilities(_Wire):
    streaming: bool
    push_notifications: bool
    extended_agent_card: bool
    extensions: list[AgentExtension] = msgspec.field(default_factory=list)


class AgentSkill(_Wire):
    id: str
    name: str
    description: str
    tags: list[str]
    examples: list[str] = msgspec.field(default_factory=list)
    input_modes: list[str] = msgspec.field(default_factory=list)
    output_modes: list[str] = msgspec.field(default_factory=list)


class HttpAuthSecurityScheme(_Wire):
    scheme: str
    bearer_format: str = ""
    description: str = ""


class SecurityScheme(_Wire):
    http_auth_security_scheme: HttpAuthSecurityScheme


class AgentCard(_Wire):
    name: str
    description: str
    supported_interfaces: list[AgentInterface]
    version: str
    capabilities: AgentCapabilities
    default_input_modes: list[str]
    default_output_modes: list[str]
    skills: list[AgentSkill]
    documentation_url: str | None = None
    security_schemes: dict[str, SecurityScheme] = msgspec.field(default_factory=dict)
    security_requirements: list[dict[str, Any]] = msgspec.field(default_factory=list)
