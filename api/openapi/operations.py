"""The operations whose answers Litestar cannot describe alone (classes the routes opt into with
``operation_class=``): a 200 that is JSON *or* an SSE stream, a stream that is always SSE, and the links from a run's
answer to its other operations (what generated clients and the stateful fuzzer follow)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
)
from litestar.openapi.spec.enums import OpenAPIType

from api.negotiation import EVENT_STREAM
from api.openapi.responses import schema_ref
from api.openapi_examples import (
    CHAT_REQUEST_EXAMPLES,
    CHAT_RESPONSE_EXAMPLES,
    EVENT_STREAM_EXAMPLE,
    RESUME_REQUEST_EXAMPLES,
)
from contracts import ID_PATTERN, ChatResponse

__all__ = (
    "RUN_ID_HEADER",
    "SESSION_ID_HEADER",
    "EventStreamOperation",
    "ResumeOperation",
    "RunOperation",
    "TurnOperation",
    "verbatim_examples",
)

RUN_ID_HEADER = "Run-Id"
SESSION_ID_HEADER = "Session-Id"


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
