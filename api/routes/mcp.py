"""``/mcp``: MCP over Streamable HTTP (the 2025-11-25 revision's handshake), one tool per registered graph, for
MCP clients (the official ``mcp`` SDK, ...). docs/mcp.md tells what is served."""

from __future__ import annotations

import logging
from importlib import metadata
from typing import TYPE_CHECKING, Any

from litestar import Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.params import RawBody

from api.mcp import SESSION_HEADER, InternalError, McpCalls, McpError, error_body, read_message
from api.openapi import problem_responses
from api.routes._router import grouped
from api.routes._services import RUN_SERVICES, RunServices
from api.runs.errors import RunsError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar import Router

__all__ = ("mcp_delete", "mcp_get", "mcp_post", "mcp_router")

logger = logging.getLogger(__name__)


@post(
    "/",
    operation_id="mcpMessage",
    tags=["mcp"],
    status_code=200,
    summary="MCP (Streamable HTTP): initialize, tools/list, tools/call, and notifications",
    responses=problem_responses(401, 413),
    dependencies=RUN_SERVICES,
)
async def mcp_post(
    *,
    body: RawBody,
    request: Request[Any, Any, Any],
    services: NamedDependency[RunServices],
) -> Response[Any]:
    counted = request.app.state.metrics.instruments.agent_calls
    method = "other"
    try:
        message = read_message(body)
        method = message.method if message.method in _COUNTED else "other"
        calls = McpCalls(
            services.graphs,
            services.runs,
            services.threads,
            services.streams,
            services.quota,
            services.principal,
            session_id=request.headers.get(SESSION_HEADER),
            streaming="text/event-stream" in request.headers.get("accept", ""),
            version=_version(),
        )
        if not message.is_request:
            await calls.notified(message)
            counted.labels("mcp", method, "ok").inc()
            return Response(b"", status_code=202)
        answer = await calls.answer(message)
    except Exception as exc:  # an answer, whatever went wrong: a JSON-RPC error, never a 500
        error = _as_mcp(exc)
        counted.labels("mcp", method, type(error).__name__).inc()
        return Response(error_body(error), media_type="application/json", status_code=200)
    counted.labels("mcp", method, "ok").inc()
    return answer


@get("/", include_in_schema=False, status_code=405)
async def mcp_get() -> Response[bytes]:
    """The service sends nothing unasked: a client's GET for a stream of its own is answered 405, as the
    specification allows."""
    return Response(b"", status_code=405, headers={"Allow": "POST"})


@delete("/", include_in_schema=False, status_code=405)
async def mcp_delete() -> Response[bytes]:
    """A session holds nothing to end."""
    return Response(b"", status_code=405, headers={"Allow": "POST"})


_COUNTED = frozenset(
    {"initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "notifications/cancelled"}
)


def _as_mcp(exc: Exception) -> McpError:
    if isinstance(exc, McpError):
        return exc
    if isinstance(exc, RunsError):
        return InternalError(exc.detail)
    logger.exception("MCP call failed")
    return InternalError("The call failed; the service's log says why.")


def _version() -> str:
    try:
        return metadata.version("agent-harness")
    except metadata.PackageNotFoundError:
        return "0"


def mcp_router(*, body_checks: Sequence[Any]) -> Router:
    """``/mcp``: MCP's one endpoint, whose ``GET`` and ``DELETE`` are refused."""
    return grouped("/mcp", [mcp_post, mcp_get, mcp_delete], body_checks=body_checks)
