"""The OpenAPI 3.1 document. Litestar generates it from the routes; the contract Structs give its schemas.

Litestar describes the operations (paths, parameters, bodies, statuses). What it cannot say alone is
added here, next to nothing else: a 200 that is JSON *or* an SSE stream (operation classes the routes
opt into), and component schemas exactly as msgspec validates them, so the document and the behaviour
agree (``additionalProperties: false`` where unknown fields are rejected, the same patterns and bounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import (
    Example,
    Link,
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Reference,
    RequestBody,
    Schema,
    Tag,
)
from litestar.openapi.spec.enums import OpenAPIType

from api.event_stream_schema import event_stream_schema
from api.negotiation import EVENT_STREAM
from api.openapi.agent_protocol_runs import BUILT_IN_ASSISTANTS, describe_run_create, narrow_webhooks
from api.openapi.agent_protocol_stream import agent_protocol_stream_schemas
from api.openapi.agui_schemas import agui_schemas
from api.openapi_examples import (
    CHAT_REQUEST_EXAMPLES,
    CHAT_RESPONSE_EXAMPLES,
    EVENT_STREAM_EXAMPLE,
    PROBLEM_EXAMPLES,
    RESUME_REQUEST_EXAMPLES,
)
from api.request_checks.cross_origin import STATE_CHANGING_METHODS
from contracts import (
    ID_PATTERN,
    PROBLEM_MEDIA_TYPE,
    AgUiRunInput,
    ChatRequest,
    ChatResponse,
    Envelope,
    EventType,
    FeedbackRequest,
    Health,
    KnowledgeDocument,
    PendingApprovals,
    Problem,
    ResumeRequest,
    RunFeedback,
    RunSnapshot,
    agent_protocol,
    crons,
    store,
)
from contracts.agui import AgUiGraphRunInput
from contracts.ai_sdk import AiSdkChatRequest

if TYPE_CHECKING:
    from collections.abc import Iterable

    from litestar import Litestar, Request

    from api.openapi.agent_protocol_runs import ServedAssistant

__all__ = (
    "ENDED_STREAM_RESPONSE",
    "LAST_EVENT_ID_PATTERN",
    "RUN_ID_HEADER",
    "RUN_ID_PATTERN",
    "SESSION_ID_HEADER",
    "SESSION_ID_PATTERN",
    "TAGS",
    "ContractJsonPlugin",
    "EventStreamOperation",
    "ResumeOperation",
    "RunOperation",
    "TurnOperation",
    "openapi_document",
    "problem_responses",
    "schema_ref",
    "verbatim_examples",
)

SESSION_ID_PATTERN = RUN_ID_PATTERN = ID_PATTERN
LAST_EVENT_ID_PATTERN = ID_PATTERN.removesuffix("$") + ":[0-9]{1,12}$"
RUN_ID_HEADER = "Run-Id"
SESSION_ID_HEADER = "Session-Id"
TAGS = [
    Tag(name="turns", description="Talk to the agent: one turn, or the decision a paused turn waits for."),
    Tag(name="runs", description="A turn's run: its snapshot, its event stream (replay and live tail), cancelling it."),
    Tag(name="sessions", description="A conversation as a whole: erasing it and everything kept of it."),
    Tag(name="knowledge", description="The knowledge-base documents answers cite."),
    Tag(name="health", description="Whether the service can serve."),
    Tag(
        name="agent-protocol",
        description=(
            "The LangGraph Agent Server API, which the LangGraph SDKs speak: assistants (one per registered graph), "
            "threads and their runs, on the same durable runs (docs/agent-protocol.md)."
        ),
    ),
]
"""Every operation has exactly one of these, so generated clients group them the same way."""

ENDED_STREAM_RESPONSE = ResponseSpec(
    data_container=None,
    description=(
        "The run has ended and the cursor is at or past its terminal event: there is nothing more to send. "
        "No body; a browser's `EventSource` stops reconnecting on a 204."
    ),
)

_REF = "#/components/schemas/{name}"
_CONTRACT_TYPES: tuple[Any, ...] = (
    ChatRequest,
    ResumeRequest,
    FeedbackRequest,
    RunFeedback,
    PendingApprovals,
    ChatResponse,
    RunSnapshot,
    Problem,
    KnowledgeDocument,
    Health,
    AgUiRunInput,
    AiSdkChatRequest,
    agent_protocol.Assistant,
    agent_protocol.AssistantSearch,
    agent_protocol.GraphSchema,
    agent_protocol.RunCreate,
    agent_protocol.SupportDecisionValue,
    agent_protocol.SupportMessageInput,
    agent_protocol.SupportMessagesInput,
    agent_protocol.ThreadCreate,
    agent_protocol.ThreadHistoryRequest,
    agent_protocol.ThreadRun,
    agent_protocol.ThreadSearch,
    agent_protocol.ThreadState,
    agent_protocol.ThreadStateUpdate,
    agent_protocol.ThreadStateUpdated,
    agent_protocol.ThreadSummary,
    AgUiGraphRunInput,
    store.StoreDelete,
    store.StoreItem,
    store.StoreNamespaces,
    store.StoreNamespacesRequest,
    store.StorePut,
    store.StoreSearch,
    store.StoreSearchResult,
    crons.Cron,
    crons.CronCreate,
    crons.CronUpdate,
    crons.CronSearch,
    crons.CronCount,
)
_NOT_SERVED_VALUES = {("cancelThreadRun", "action"): "rollback"}
"""Query values a route's type admits but the route refuses (422): the document lists only the served ones."""
_MORE_ANSWERS = {
    "cancelThreadRun": {
        "200": {
            "description": "With `wait`: the run's result once it has ended, as `GET .../join` answers it.",
            "content": {"application/json": {"schema": {}}},
        }
    }
}
"""Answers a route gives besides the status it declares (a cancel answers 202, or 200 with the result it waited for)."""
_FOREIGN_ORIGIN = (
    "a browser page of another origin sent it; only the service's own pages and the origins listed in "
    "HARNESS_CORS_ORIGINS may change anything"
)
_PROBLEMS = {
    401: (
        "Identity is on and the request has no valid bearer token; `code` says why (`token_missing`, "
        "`token_unknown`, `token_malformed`, `token_expired`, `token_not_yet_valid`, `token_signature_invalid`, "
        "`token_audience_invalid`, `token_issuer_invalid`, `token_subject_missing`)"
    ),
    403: (
        "The caller may not do this: `not_an_approver` (deciding needs HARNESS_APPROVER_ROLE), `not_the_owner` "
        f"(only the run's owner cancels it), `origin_not_allowed` ({_FOREIGN_ORIGIN})"
    ),
    404: "Unknown run (or one of another session or subject), session of another subject, approval or document",
    409: (
        "Conflict: the session has a run in progress (or is being erased), or the run is not waiting for this decision"
    ),
    413: "Request body too large",
    415: "The body is not JSON: send it as `Content-Type: application/json` (`unsupported_media_type`)",
    421: (
        "The `Host` header names a host this service does not answer for (`host_not_allowed`): a DNS-rebinding "
        "page, or a name missing from HARNESS_ALLOWED_HOSTS"
    ),
    422: "Invalid request: every failing field is listed in `errors`",
    429: (
        "Rate limited (turns per minute per subject, or per address with identity off) or too many open event "
        "streams for the subject: retry after `Retry-After` seconds"
    ),
    500: "The agent failed unexpectedly (no half-filled ChatResponse is ever sent)",
    502: "The model provider failed mid-answer",
    503: "The model provider or a store is unavailable, or the service is shutting down",
}
PUBLIC_OPERATIONS = frozenset({"healthz", "a2aDefaultAgentCard", "a2aAgentCard"})
"""Operations anyone may call when identity is on (besides the SPA's pages and this document)."""
BEARER_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "description": (
        "`Authorization: Bearer <token>`: a token from the service's tokens file, or a JWT (HS256, RS256 or "
        "ES256) with `sub`, optional `roles` and `account_id`. Sessions and runs belong to the subject that "
        "started them; to anyone else they do not exist (404)."
    ),
}
_EVENT_STREAM_DESCRIPTION = (
    "With `Accept: text/event-stream` ranked above `application/json`: the run as Server-Sent Events. "
    "The schema describes one event; its `data` is a JSON envelope (see `Envelope` and docs/events.md). "
    "Comment lines `: hb` are heartbeats."
)


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem+json answers a route can give, for its ``responses=``."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_MEDIA_TYPE,
            description=_PROBLEMS[status],
            generate_examples=False,
            examples=[Example(summary=name, value=value) for name, value in PROBLEM_EXAMPLES.get(status, {}).items()],
        )
        for status in statuses
    }


def schema_ref(name: str) -> Reference:
    return Reference(ref=_REF.format(name=name))


@dataclass
class _VerbatimExample(Example):
    """An example whose ``null`` fields survive (Litestar drops ``None`` values while rendering)."""

    def to_schema(self) -> dict[str, Any]:
        return {"value": self.value}


def verbatim_examples(values: dict[str, Any]) -> dict[str, Example | Reference]:
    return {name: _VerbatimExample(value=value) for name, value in values.items()}


def _event_stream_media() -> OpenAPIMediaType:
    return OpenAPIMediaType(schema=schema_ref("EventStream"), examples=verbatim_examples(EVENT_STREAM_EXAMPLE))


def _run_links(source: str) -> dict[str, Link | Reference]:
    """Where a client goes next with the run a response names (also what the stateful fuzzer follows).

    ``source`` is ``body`` for JSON-only answers and ``header`` for the turn routes, whose 200 may be JSON or
    an event stream: the ``Run-Id``/``Session-Id`` headers are there either way, the body's fields are not.
    """
    if source == "header":
        run = {"run_id": f"$response.header.{RUN_ID_HEADER}", "session_id": f"$response.header.{SESSION_ID_HEADER}"}
    else:
        run = {"run_id": "$response.body#/run_id", "session_id": "$response.body#/session_id"}
    return {
        "GetRun": Link(operation_id="getRun", parameters=run, description="The run's snapshot."),
        "StreamRunEvents": Link(operation_id="streamRunEvents", parameters=run, description="Its events."),
        "CancelRun": Link(operation_id="cancelRun", parameters=run, description="Cancel it."),
    }


@dataclass
class RunOperation(Operation):
    """``GET /runs/{run_id}`` and ``POST /runs/{run_id}/cancel``: link to the run's other operations."""

    def __post_init__(self) -> None:
        for status, response in (self.responses or {}).items():
            if status in ("200", "202") and isinstance(response, OpenAPIResponse):
                response.links = _run_links("body")


@dataclass
class TurnOperation(Operation):
    """``POST /chat``: a JSON ``ChatResponse``, or the run as SSE (content negotiation)."""

    def __post_init__(self) -> None:
        _describe_turn(self, CHAT_REQUEST_EXAMPLES)


@dataclass
class ResumeOperation(Operation):
    """``POST /chat/resume``: like ``POST /chat``, continuing the paused run."""

    def __post_init__(self) -> None:
        _describe_turn(self, RESUME_REQUEST_EXAMPLES)


@dataclass
class EventStreamOperation(Operation):
    """``GET /runs/{run_id}/events``: always SSE."""

    def __post_init__(self) -> None:
        ok = self.responses["200"] if self.responses else None
        assert isinstance(ok, OpenAPIResponse)
        ok.description = "The run's events after the cursor, then the live tail until its terminal event."
        ok.content = {EVENT_STREAM: _event_stream_media()}


def _describe_turn(operation: Operation, request_examples: dict[str, Any]) -> None:
    body = operation.request_body
    assert isinstance(body, RequestBody)
    body.content["application/json"].examples = verbatim_examples(request_examples)
    ok = operation.responses["200"] if operation.responses else None
    assert isinstance(ok, OpenAPIResponse)
    ok.description = "The turn's ChatResponse (also for a paused turn: `status: paused`), or the run as SSE."
    ok.links = _run_links("header")
    ok.headers = {
        RUN_ID_HEADER: _id_header("The run this turn is (the same as the body's `run_id`)."),
        SESSION_ID_HEADER: _id_header("The run's session (the same as the body's `session_id`)."),
    }
    ok.content = {
        "application/json": OpenAPIMediaType(
            schema=schema_ref(ChatResponse.__name__), examples=verbatim_examples(CHAT_RESPONSE_EXAMPLES)
        ),
        EVENT_STREAM: _event_stream_media(),
    }


def _id_header(description: str) -> OpenAPIHeader:
    return OpenAPIHeader(
        schema=Schema(type=OpenAPIType.STRING, pattern=ID_PATTERN), description=description, required=True
    )


def contract_schemas(
    served: Iterable[ServedAssistant] = BUILT_IN_ASSISTANTS, webhook_pattern: str | None = None
) -> dict[str, Any]:
    """Component schemas of every contract Struct, as msgspec generates (and validates) them, ``RunCreate`` narrowed
    to the ``served`` assistants and the webhooks allowed (``webhook_pattern``; None: none)."""
    (*_, envelope), components = msgspec.json.schema_components((*_CONTRACT_TYPES, Envelope), ref_template=_REF)
    components["Envelope"] = {
        "title": "Envelope",
        "description": "One SSE event's data: the v1 envelope, discriminated by `type`.",
        **envelope,
    }
    event_types = list(get_args(EventType))
    components["ServerSentEvent"] = {
        "title": "ServerSentEvent",
        "description": "One event of the stream, as the SSE fields of its frame.",
        "type": "object",
        "required": ["id", "event", "data"],
        "properties": {
            "id": {"type": "string", "pattern": r"^[A-Za-z0-9_-]+:[1-9][0-9]*$", "description": "`<run_id>:<seq>`"},
            "event": {"type": "string", "enum": event_types, "description": "The envelope's `type`."},
            "retry": {"type": "integer", "minimum": 0, "description": "Reconnection delay hint (first frame)."},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": _REF.format(name="Envelope")},
            },
        },
    }
    components["EventStream"] = event_stream_schema(
        "EventStream", _REF.format(name="ServerSentEvent"), "A run's events as Server-Sent Events."
    )
    describe_run_create(components, served, _REF)
    narrow_webhooks(components, webhook_pattern)
    return {**components, **agui_schemas(_REF), **agent_protocol_stream_schemas(_REF)}


def finalize(
    document: dict[str, Any],
    *,
    identity: bool,
    served: Iterable[ServedAssistant] = BUILT_IN_ASSISTANTS,
    webhook_pattern: str | None = None,
) -> dict[str, Any]:
    """Litestar's document with the contract's schemas (runs of the ``served`` assistants), without the 400 this API
    never answers, parameters as the server reads them, and, when ``identity`` is on, the bearer scheme required by
    every operation but the public ones."""
    for path_item in document.get("paths", {}).values():
        for method, operation in path_item.items():
            for parameter in operation.get("parameters", []):
                parameter["schema"] = _served_values(operation["operationId"], parameter)
                if parameter["in"] == "path" and parameter["name"] == "thread_id":
                    # a thread id has a session id's shape: one of another is refused (422) where a run creates it
                    parameter["schema"] = {**parameter["schema"], "pattern": ID_PATTERN}
            responses = operation.get("responses", {})
            responses.pop("400", None)
            responses.update(_MORE_ANSWERS.get(operation["operationId"], {}))
            _add_request_check_problems(method, operation)
            if "429" in responses:
                responses["429"]["headers"] = {"Retry-After": _header("Seconds to wait before retrying.", "integer")}
            if "401" in responses:
                responses["401"]["headers"] = {"WWW-Authenticate": _header("The bearer challenge (RFC 6750).")}
            if identity:
                operation["security"] = [] if operation["operationId"] in PUBLIC_OPERATIONS else [{"bearer": []}]
    components = document.setdefault("components", {})
    components["schemas"] = contract_schemas(served, webhook_pattern)
    if identity:
        components["securitySchemes"] = {"bearer": BEARER_SCHEME}
    return document


def _add_request_check_problems(method: str, operation: dict[str, Any]) -> None:
    """The answers of api/request_checks, which run before any route: a foreign ``Host`` on any operation, a
    body that is not JSON on those that take one, a foreign ``Origin`` on those that change something."""
    responses = operation.setdefault("responses", {})
    responses["421"] = _problem_response(421)
    if "requestBody" in operation:
        responses["415"] = _problem_response(415)
    if method.upper() in STATE_CHANGING_METHODS and "403" not in responses:
        responses["403"] = _problem_response(403, f"`origin_not_allowed`: {_FOREIGN_ORIGIN}", code="origin_not_allowed")
    operation["responses"] = dict(sorted(responses.items()))


def _problem_response(status: int, description: str | None = None, *, code: str | None = None) -> Any:
    """A problem+json response as ``problem_responses`` has Litestar render it (its examples: those of ``code``)."""
    chosen = [
        (name, value) for name, value in PROBLEM_EXAMPLES.get(status, {}).items() if code in (None, value["code"])
    ]
    examples = {
        f"problem-example-{number}": {"summary": name, "value": value}
        for number, (name, value) in enumerate(chosen, start=1)
    }
    media: dict[str, Any] = {"schema": schema_ref(Problem.__name__).to_schema()}
    if examples:
        media["examples"] = examples
    return {"description": description or _PROBLEMS[status], "content": {PROBLEM_MEDIA_TYPE: media}}


def _header(description: str, kind: str = "string") -> dict[str, Any]:
    return {"description": description, "schema": {"type": kind}}


def _never_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter's schema without the ``null`` Litestar adds for an optional one: a query parameter or a
    header is a string or absent, never ``null`` (sending the text ``null`` would be a different value)."""
    branches = schema.get("oneOf")
    if not branches:
        return schema
    kept = [branch for branch in branches if branch != {"type": "null"}]
    rest = {key: value for key, value in schema.items() if key != "oneOf"}
    return {**kept[0], **rest} if len(kept) == 1 else {**rest, "oneOf": kept}


def _served_values(operation_id: str, parameter: dict[str, Any]) -> dict[str, Any]:
    """A parameter's schema without ``null`` and without the values its route refuses (``_NOT_SERVED_VALUES``)."""
    schema = _never_null(parameter["schema"])
    refused = _NOT_SERVED_VALUES.get((operation_id, parameter["name"]))
    if refused is None or refused not in schema.get("enum", ()):
        return schema
    served = [choice for choice in schema["enum"] if choice != refused]
    description = f"{', '.join(f'`{choice}`' for choice in served)} (`{refused}` is not served)."
    parameter["description"] = description
    return {**schema, "enum": served, "description": description}


def openapi_document(app: Litestar) -> dict[str, Any]:
    """The document ``/schema/openapi.json`` serves and ``harness docs`` writes to docs/openapi.json: the runs it
    describes are those of the graphs the app serves (the built-in support agent before it has started)."""
    cached: dict[str, Any] | None = app.state.get("openapi_document")
    if cached is None:
        runs = app.state.get("runs")
        served = BUILT_IN_ASSISTANTS if runs is None else [(each.graph_id, each.assistant_id) for each in runs.graphs]
        cached = finalize(
            app.openapi_schema.to_schema(),
            identity=bool(app.state.get("identity")),
            served=served,
            webhook_pattern=app.state.get("webhook_pattern"),
        )
        app.state["openapi_document"] = cached
    return cached


class ContractJsonPlugin(JsonRenderPlugin):
    """Serves the finished document at ``/schema/openapi.json``."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return msgspec.json.encode(openapi_document(request.app))
