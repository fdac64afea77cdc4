"""The LangGraph Agent Server API (the "Agent Protocol" the LangGraph SDKs speak), as this service serves it.

Field names and shapes follow langgraph-sdk's own types (``langgraph_sdk.schema``), so the official clients
work unchanged. Requests accept unknown fields (newer SDKs send more than this service reads); docs/agent-
protocol.md says, endpoint by endpoint, what is served and where the service deliberately differs.

A field whose SDK type admits more than is served (``multitask_strategy``, ``stream_mode``, ``command.update``,
``interrupt_before``, ...) is decoded loosely and its schema says what is served: ``api.agent_protocol.requests``
refuses the rest with a 422 ``run_request_invalid`` that says what to send instead, and tests/contracts/
test_run_requests.py holds the schema and the server to the same set.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from contracts.graph_events import GRAPH_STREAM_MODES
from contracts.ids import ID_PATTERN
from contracts.requests import WHITESPACE, ApprovalDecision

__all__ = (
    "RESERVED_OPTION_KEY_PATTERN",
    "RUN_STREAM_MODES",
    "SERVED_MULTITASK_STRATEGIES",
    "Assistant",
    "AssistantSearch",
    "GraphSchema",
    "RunCommand",
    "RunConfig",
    "RunCreate",
    "RunOptions",
    "RunStatusName",
    "SupportChatMessage",
    "SupportDecisionValue",
    "SupportMessageInput",
    "SupportMessagesInput",
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
RUN_STREAM_MODES: tuple[str, ...] = (*GRAPH_STREAM_MODES, "messages-tuple")
"""The stream modes a run may ask for: LangGraph's, and the SDKs' ``messages-tuple`` (streamed as ``messages``)."""
SERVED_MULTITASK_STRATEGIES = ("reject", "interrupt", "rollback", "enqueue")
"""What a run does when its thread is busy (docs/adr/0039-double-texting.md)."""
RESERVED_OPTION_KEY_PATTERN = r"^(?!(?:thread_id|run_id|graph_id|assistant_id)(?![\s\S])|__|checkpoint_|langgraph_)"
r"""A key a client may give in a run's ``configurable``, ``metadata`` or ``context``: not one LangGraph or the service
reads itself (``api.runs.run_options.reserved_key``). ``(?![\s\S])`` ends the string in both Python and ECMA-262
regexes (``$`` would also match before a final newline in Python)."""
_MODE = {"type": "string", "enum": list(RUN_STREAM_MODES)}
StreamModes = Annotated[
    Any,
    msgspec.Meta(
        description=(
            "`values`, `updates`, `messages-tuple` (sent as `messages`), `messages`, `custom`, `debug`, `tasks`, "
            "`checkpoints`, `events` (LangChain's callback events); one or a list. Default `values`."
        ),
        extra_json_schema={"anyOf": [_MODE, {"type": "array", "items": _MODE}]},
    ),
]
StreamModesChange = Annotated[
    Any,
    msgspec.Meta(
        description=(
            "`values`, `updates`, `messages-tuple` (sent as `messages`), `messages`, `custom`, `debug`, `tasks`, "
            "`checkpoints`, `events`; one or a list. `null` or absent: unchanged."
        ),
        extra_json_schema={"anyOf": [_MODE, {"type": "array", "items": _MODE}, {"type": "null"}]},
    ),
]
"""``StreamModes`` where a change is optional (``PATCH /runs/crons/{cron_id}``)."""
Limit = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Offset = Annotated[int, msgspec.Meta(ge=0)]
JsonObject = dict[str, Any]
_CLIENT_KEYS = {"additionalProperties": True, "propertyNames": {"pattern": RESERVED_OPTION_KEY_PATTERN}}
_OPTIONS = {"type": "object", **_CLIENT_KEYS}
RunOptions = Annotated[
    JsonObject,
    msgspec.Meta(
        description=(
            "Free keys, but none LangGraph or the service reads itself: `thread_id`, `run_id`, `graph_id`, "
            "`assistant_id`, and keys starting with `__`, `checkpoint_` or `langgraph_` are refused (422)."
        ),
        extra_json_schema=_CLIENT_KEYS,
    ),
]
"""A run's ``context``, ``metadata``, or its config's ``configurable``/``metadata``: what a client may tune."""
_POSITIVE = {"type": "integer", "minimum": 1}
RunConfig = Annotated[
    JsonObject,
    msgspec.Meta(
        description=(
            "LangChain's `RunnableConfig`, the keys a client may set: `configurable`, `metadata`, `tags`, "
            "`recursion_limit`, `run_name`, `max_concurrency` (`callbacks` and `run_id` are the service's)."
        ),
        extra_json_schema={
            "properties": {
                "configurable": {"anyOf": [_OPTIONS, {"type": "null"}]},
                "metadata": {"anyOf": [_OPTIONS, {"type": "null"}]},
                "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
                "recursion_limit": {"anyOf": [_POSITIVE, {"type": "null"}]},
                "run_name": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "max_concurrency": {"anyOf": [_POSITIVE, {"type": "null"}]},
            },
            "additionalProperties": False,
        },
    ),
]
"""A run's ``config`` (``api.runs.run_options.screen_run_options`` refuses the rest with a 422 naming the key)."""


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


_NOT_SERVED = {"type": "null"}


class RunCommand(msgspec.Struct, kw_only=True):
    """`Command(resume=...)` for the graph: the answer to the interrupt the thread's run waits at.

    LangGraph's `Command` also has `update` and `goto`; they are not served (a run's state changes through its
    nodes), so the schema admits them only as `null`, and any other value is refused (422)."""

    resume: Annotated[
        Any,
        msgspec.Meta(
            description=(
                "The value the waiting `interrupt()` returns (null: no resume). The support agent takes "
                '`{"decision": "approve" | "reject", "comment": "..."}`.'
            )
        ),
    ] = None
    update: Annotated[Any, msgspec.Meta(description="Not served: null or absent.", extra_json_schema=_NOT_SERVED)] = (
        None
    )
    goto: Annotated[Any, msgspec.Meta(description="Not served: null or absent.", extra_json_schema=_NOT_SERVED)] = None


_NONE_SERVED = {"anyOf": [{"type": "array", "items": {"type": "string"}, "maxItems": 0}, {"type": "null"}]}
NoInterruptsAt = Annotated[
    Any,
    msgspec.Meta(
        description=(
            "Not served: a graph pauses where its nodes call `interrupt()`. Accepted empty (`[]`) or null, as a "
            "client may send it; nodes (or `*`) are refused (422)."
        ),
        extra_json_schema=_NONE_SERVED,
    ),
]


class RunCreate(msgspec.Struct, kw_only=True):
    """A run of an assistant on a thread (or on a thread of its own, for the stateless routes).

    A run takes `input` (a new run) or `command.resume` (the answer to the interrupt the thread's run waits at), not
    both. The support agent takes a `SupportMessageInput` or a `SupportMessagesInput` as input, and a
    `SupportDecisionValue` as resume; any other graph takes its own input."""

    assistant_id: Annotated[str, msgspec.Meta(description="An assistant id, or the id of a registered graph.")]
    input: Annotated[
        Any,
        msgspec.Meta(
            description=(
                "The graph's input (null with `command.resume`). The support agent takes a message: "
                '`{"message": "..."}`, or `{"messages": [...]}` whose newest user message is the turn.'
            )
        ),
    ] = None
    command: RunCommand | None = None
    stream_mode: StreamModes = "values"
    stream_subgraphs: bool = False
    stream_resumable: bool = False
    on_disconnect: Literal["cancel", "continue"] | None = None
    multitask_strategy: Annotated[
        Any,
        msgspec.Meta(
            description=(
                "When the thread is busy: `enqueue` (the default: the run is `pending` until the thread is free, "
                "then runs), `reject` (409), `interrupt` (the busy run ends first) or `rollback` (the busy run "
                "ends and is removed with its checkpoints first)."
            ),
            extra_json_schema={"type": "string", "enum": list(SERVED_MULTITASK_STRATEGIES)},
        ),
    ] = "enqueue"
    if_not_exists: Literal["reject", "create"] = "reject"
    config: RunConfig | None = None
    context: RunOptions | None = None
    metadata: RunOptions | None = None
    interrupt_before: NoInterruptsAt = None
    interrupt_after: NoInterruptsAt = None
    webhook: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "A URL (http or https) the run is POSTed to, as `GET /threads/{thread_id}/runs/{run_id}` shows it, "
                "when it ends; its host must be one of `HARNESS_WEBHOOK_ALLOWED_HOSTS` (else 422)."
            )
        ),
    ] = None


_INK = f"[^{WHITESPACE}]"


class SupportMessageInput(msgspec.Struct, kw_only=True):
    """The support agent's input as one message (other keys are ignored)."""

    message: Annotated[str, msgspec.Meta(pattern=_INK, description="The user's message: not blank.")]


class SupportChatMessage(msgspec.Struct, kw_only=True):
    """One message of `SupportMessagesInput` (a LangChain message as a dict; its other keys are ignored)."""

    role: str | None = None
    type: str | None = None
    content: Any = None


class SupportMessagesInput(msgspec.Struct, kw_only=True):
    """The support agent's input as a conversation, LangChain's way: its newest user message with text is the turn
    (the history is the thread's, not the client's)."""

    messages: Annotated[
        list[SupportChatMessage],
        msgspec.Meta(
            description="At least one user (`role: user` or `type: human`) message whose `content` is text.",
            extra_json_schema={
                "contains": {
                    "type": "object",
                    "required": ["content"],
                    "properties": {"content": {"type": "string", "pattern": _INK}},
                    "anyOf": [
                        {"required": ["role"], "properties": {"role": {"enum": ["user", "human"]}}},
                        {"required": ["type"], "properties": {"type": {"enum": ["user", "human"]}}},
                    ],
                }
            },
        ),
    ]


class SupportDecisionValue(msgspec.Struct, kw_only=True):
    """What resumes the support agent: the decision on the action it waits to have approved."""

    decision: ApprovalDecision
    comment: str | None = None


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
