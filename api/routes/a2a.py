"""A2A 1.0 for every registered graph: ``GET /a2a/{assistant_id}/.well-known/agent-card.json`` (and
``GET /.well-known/agent-card.json`` for the default assistant), and ``POST /a2a/{assistant_id}``, the JSON-RPC
endpoint, for other agents (the official ``a2a-sdk`` client, ...). docs/a2a.md tells what is served."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import RawBody

from agent.graphs import GraphRegistry
from api.a2a import (
    A2ACalls,
    A2AError,
    InternalError,
    VersionNotSupported,
    agent_card,
    error_body,
    from_refusal,
    read_call,
)
from api.exceptions import ApiError
from api.graph_runs import graph_named
from api.openapi import problem_responses
from api.routes._params import AssistantId
from api.routes._router import grouped
from api.routes._services import RUN_SERVICES, RunServices
from api.runs.errors import RunsError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar import Router

__all__ = ("a2a_agent_card", "a2a_default_agent_card", "a2a_router", "a2a_rpc")

logger = logging.getLogger(__name__)

_CARD_MEDIA_TYPE = "application/json"
_VERSION_HEADER = "a2a-version"


@get(
    "/.well-known/agent-card.json",
    operation_id="a2aDefaultAgentCard",
    tags=["a2a"],
    summary="The A2A 1.0 agent card of the default assistant",
    public=True,
    cache=False,
)
async def a2a_default_agent_card(
    request: Request[Any, Any, Any], graphs: NamedDependency[GraphRegistry]
) -> Response[Any]:
    return _card(request, graphs, graphs.default.graph_id)


@get(
    "/.well-known/agent-card.json",
    operation_id="a2aAgentCard",
    tags=["a2a"],
    summary="The A2A 1.0 agent card of a registered graph",
    public=True,
    cache=False,
    responses=problem_responses(404),
)
async def a2a_agent_card(
    assistant_id: AssistantId, request: Request[Any, Any, Any], graphs: NamedDependency[GraphRegistry]
) -> Response[Any]:
    return _card(request, graphs, assistant_id)


def _card(request: Request[Any, Any, Any], graphs: GraphRegistry, assistant_id: str) -> Response[Any]:
    registered = graph_named(graphs, assistant_id)
    bearer = "" if request.app.state.identity else None
    card = agent_card(registered, base_url=str(request.base_url), bearer=bearer)
    return Response(card, media_type=_CARD_MEDIA_TYPE)


@post(
    "/",
    operation_id="a2aJsonRpc",
    tags=["a2a"],
    status_code=200,
    summary="A2A 1.0 JSON-RPC: SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask",
    responses=problem_responses(401, 404, 413, 415),
    dependencies=RUN_SERVICES,
)
async def a2a_rpc(
    assistant_id: AssistantId,
    *,
    body: RawBody,
    request: Request[Any, Any, Any],
    services: NamedDependency[RunServices],
) -> Response[Any]:
    registered = graph_named(services.graphs, assistant_id)
    call_id: str | int | None = None
    method = "other"
    counted = request.app.state.metrics.instruments.agent_calls
    try:
        call = read_call(body)
        call_id, method = call.id, call.method
        _check_version(request.headers.get(_VERSION_HEADER))
        calls = A2ACalls(
            registered,
            services.runs,
            services.threads,
            services.streams,
            services.quota,
            services.principal,
            last_event_id=request.headers.get("last-event-id"),
        )
        answer = await calls.answer(call)
    except Exception as exc:  # an answer, whatever went wrong: a JSON-RPC error, never a 500
        error = _as_a2a(exc, call_id)
        counted.labels("a2a", method, error.reason).inc()
        return _error(error.call_id if error.call_id is not None else call_id, error)
    counted.labels("a2a", method, "ok").inc()
    return answer


def _as_a2a(exc: Exception, call_id: str | int | None) -> A2AError:
    if isinstance(exc, A2AError):
        return exc
    if isinstance(exc, RunsError | ApiError):
        return from_refusal(exc)
    logger.exception("A2A call %r failed", call_id)
    return InternalError("The call failed; the service's log says why.")


def _check_version(version: str | None) -> None:
    """A2A 1.x, or no version said (read as the version this endpoint serves)."""
    if version and version.strip().split(".")[0] != "1":
        raise VersionNotSupported(f"A2A-Version {version} is not served here: this endpoint speaks A2A 1.0.")


def _error(call_id: str | int | None, error: A2AError) -> Response[bytes]:
    return Response(error_body(call_id, error.as_error()), media_type="application/json", status_code=200)


def a2a_router(*, body_checks: Sequence[Any]) -> Router:
    """The default assistant's agent card at the root, and under ``/a2a/{assistant_id}`` each registered graph's
    card and JSON-RPC endpoint."""
    of_a_graph = grouped("/a2a/{assistant_id:str}", [a2a_agent_card, a2a_rpc], body_checks=body_checks)
    return grouped("/", [a2a_default_agent_card, of_a_graph], body_checks=body_checks)
