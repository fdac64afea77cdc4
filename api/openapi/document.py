"""The OpenAPI 3.1 document. Litestar generates it from the routes; the contract Structs give its schemas.

Litestar describes the operations (paths, parameters, bodies, statuses). What it cannot say alone is added
here and beside it: component schemas exactly as msgspec validates them, so the document and the behaviour agree
(``additionalProperties: false`` where unknown fields are rejected, the same patterns and bounds), the parameters
as the server reads them and the answers of the request checks (this module); a 200 that is JSON *or* an SSE
stream (``operations``, classes the routes opt into); the problem+json answers (``responses``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

import msgspec
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Tag

from api.event_stream_schema import event_stream_schema
from api.openapi.agent_protocol_runs import BUILT_IN_ASSISTANTS, describe_run_create, narrow_webhooks
from api.openapi.agent_protocol_stream import agent_protocol_stream_schemas
from api.openapi.agui_schemas import agui_schemas
from api.openapi.responses import FOREIGN_ORIGIN, SCHEMA_REF, problem_response
from api.request_checks.cross_origin import STATE_CHANGING_METHODS
from contracts import (
    ID_PATTERN,
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
    "LAST_EVENT_ID_PATTERN",
    "PUBLIC_OPERATIONS",
    "RUN_ID_PATTERN",
    "SESSION_ID_PATTERN",
    "TAGS",
    "ContractJsonPlugin",
    "contract_schemas",
    "openapi_document",
)

SESSION_ID_PATTERN = RUN_ID_PATTERN = ID_PATTERN
LAST_EVENT_ID_PATTERN = ID_PATTERN.removesuffix("$") + ":[0-9]{1,12}$"
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


def contract_schemas(
    served: Iterable[ServedAssistant] = BUILT_IN_ASSISTANTS, webhook_pattern: str | None = None
) -> dict[str, Any]:
    """Component schemas of every contract Struct, as msgspec generates (and validates) them, ``RunCreate`` narrowed
    to the ``served`` assistants and the webhooks allowed (``webhook_pattern``; None: none)."""
    (*_, envelope), components = msgspec.json.schema_components((*_CONTRACT_TYPES, Envelope), ref_template=SCHEMA_REF)
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
                "contentSchema": {"$ref": SCHEMA_REF.format(name="Envelope")},
            },
        },
    }
    components["EventStream"] = event_stream_schema(
        "EventStream", SCHEMA_REF.format(name="ServerSentEvent"), "A run's events as Server-Sent Events."
    )
    describe_run_create(components, served, SCHEMA_REF)
    narrow_webhooks(components, webhook_pattern)
    return {**components, **agui_schemas(SCHEMA_REF), **agent_protocol_stream_schemas(SCHEMA_REF)}


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
    responses["421"] = problem_response(421)
    if "requestBody" in operation:
        responses["415"] = problem_response(415)
    if method.upper() in STATE_CHANGING_METHODS and "403" not in responses:
        responses["403"] = problem_response(403, f"`origin_not_allowed`: {FOREIGN_ORIGIN}", code="origin_not_allowed")
    operation["responses"] = dict(sorted(responses.items()))


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
