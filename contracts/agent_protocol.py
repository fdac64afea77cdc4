"""The LangGraph Agent Server API (the "Agent Protocol" the LangGraph SDKs speak), as this service serves it.

Field names and shapes follow langgraph-sdk's own types (``langgraph_sdk.schema``), so the official clients
work unchanged. Requests accept unknown fields (newer SDKs send more than this service reads); docs/agent-
protocol.md says, endpoint by endpoint, what is served and where the service deliberately differs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from contracts.ids import ID_PATTERN

__all__ = (
    "Assistant",
    "AssistantSearch",
    "GraphSchema",
    "RunCommand",
    "RunCreate",
    "RunStatusName",
    "ThreadCheckpoint",
    "ThreadCreate",
    "ThreadHistoryRequest",
    "ThreadInterrupt",
    "ThreadRun",
    "ThreadSearch",
    "ThreadState",
    "ThreadStateUpdate",
    "ThreadStateUpdated",
    "ThreadStatus",
    "ThreadSummary",
    "ThreadTask",
)

RunStatusName = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
"""A run's status as the Agent Server names it: ``interrupted`` for a run waiting at an interrupt or cancelled."""
ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
StreamModes = Annotated[
    str | list[str],
    msgspec.Meta(
        description=(
            "`values`, `updates`, `messages-tuple` (sent as `messages`), `messages`, `custom`, `debug`, `tasks`, "
            "`checkpoints`, `events` (LangChain's callback events); one or a list. Default `values`."
        )
    ),
]
Limit = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Offset = Annotated[int, msgspec.Meta(ge=0)]
JsonObject = dict[str, Any]


class Assistant(msgspec.Struct, kw_only=True):
    """One registered graph: the service has one assistant per graph, with the Agent Server's deterministic id."""

    assistant_id: str
    graph_id: str
    config: JsonObject
    context: JsonObject
    created_at: str
    updated_at: str
    metadata: JsonObject
    version: int
    name: str
    description: str | None


class AssistantSearch(msgspec.Struct, kw_only=True):
    limit: Limit = 10
    offset: Offset = 0
    metadata: JsonObject | None = None
    graph_id: str | None = None
    name: str | None = None
    sort_by: Literal["assistant_id", "graph_id", "name", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None


class GraphSchema(msgspec.Struct, kw_only=True):
    graph_id: str
    input_schema: JsonObject | None
    output_schema: JsonObject | None
    state_schema: JsonObject | None
    config_schema: JsonObject | None
    context_schema: JsonObject | None


class ThreadCreate(msgspec.Struct, kw_only=True):
    thread_id: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=ID_PATTERN,
                description="The thread's id (1-64 of [A-Za-z0-9_-]; a UUID fits); the service makes one when missing.",
            ),
        ]
        | None
    ) = None
    metadata: JsonObject | None = None
    if_exists: Literal["raise", "do_nothing"] = "raise"


class ThreadInterrupt(msgspec.Struct, kw_only=True):
    value: Any
    id: str


class ThreadSummary(msgspec.Struct, kw_only=True):
    """A thread: a session of this service, and a LangGraph thread (its checkpoints)."""

    thread_id: str
    created_at: str
    updated_at: str
    metadata: JsonObject
    status: ThreadStatus
    values: Any
    interrupts: dict[str, list[ThreadInterrupt]]


class ThreadSearch(msgspec.Struct, kw_only=True):
    limit: Limit = 10
    offset: Offset = 0
    metadata: JsonObject | None = None
    ids: list[str] | None = None
    status: ThreadStatus | None = None
    sort_by: Literal["thread_id", "status", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None


class ThreadCheckpoint(msgspec.Struct, kw_only=True):
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str | None


class ThreadTask(msgspec.Struct, kw_only=True):
    id: str
    name: str
    error: str | None
    interrupts: list[ThreadInterrupt]
    checkpoint: ThreadCheckpoint | None
    state: Any
    result: Any


class ThreadState(msgspec.Struct, kw_only=True):
    values: Any
    next: list[str]
    tasks: list[ThreadTask]
    metadata: JsonObject | None
    created_at: str | None
    checkpoint: ThreadCheckpoint | None
    parent_checkpoint: ThreadCheckpoint | None
    interrupts: list[ThreadInterrupt]
    checkpoint_id: str | None
    parent_checkpoint_id: str | None


class ThreadStateUpdate(msgspec.Struct, kw_only=True):
    values: Any = None
    as_node: str | None = None
    checkpoint: JsonObject | None = None
    checkpoint_id: str | None = None


class ThreadStateUpdated(msgspec.Struct, kw_only=True):
    checkpoint: ThreadCheckpoint


class ThreadHistoryRequest(msgspec.Struct, kw_only=True):
    limit: Limit = 10
    before: str | JsonObject | None = None
    metadata: JsonObject | None = None
    checkpoint: JsonObject | None = None


class RunCommand(msgspec.Struct, kw_only=True):
    """``Command(resume=..., update=..., goto=...)`` for the graph."""

    resume: Any = None
    update: Any = None
    goto: Any = None


class RunCreate(msgspec.Struct, kw_only=True):
    """A run of an assistant on a thread (or on a thread of its own, for the stateless routes)."""

    assistant_id: Annotated[str, msgspec.Meta(description="An assistant id, or the id of a registered graph.")]
    input: Any = None
    command: RunCommand | None = None
    stream_mode: StreamModes = "values"
    stream_subgraphs: bool = False
    stream_resumable: bool = False
    on_disconnect: Literal["cancel", "continue"] | None = None
    multitask_strategy: Literal["reject", "interrupt", "rollback", "enqueue"] = "reject"
    if_not_exists: Literal["reject", "create"] = "reject"
    config: JsonObject | None = None
    context: JsonObject | None = None
    metadata: JsonObject | None = None
    interrupt_before: Literal["*"] | list[str] | None = None
    interrupt_after: Literal["*"] | list[str] | None = None


class ThreadRun(msgspec.Struct, kw_only=True):
    """A run as the Agent Server reports it."""

    run_id: str
    thread_id: str
    assistant_id: str
    created_at: str
    updated_at: str
    status: RunStatusName
    metadata: JsonObject
    multitask_strategy: str
    kwargs: JsonObject
