"""The routes grouped by protocol, each a Litestar ``Router`` (``api.routes``): the app serves every handler at the
path it always had, a thread's routes under the one ``/threads/{thread_id}`` of their router, the routes that read
a body (and only they) wrapped in the body checks, and ``OPTIONS`` naming every method of a path."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import pytest
from litestar.handlers import HTTPRouteHandler
from litestar.testing import AsyncTestClient

from api.app import create_app
from api.request_checks import takes_body
from api.request_checks.json_bodies import JsonBodyCheck
from api.routes.agent_protocol import THREAD_PATH

if TYPE_CHECKING:
    from litestar import Litestar

    from api.settings import Settings


@pytest.fixture
def stores() -> None:
    """The routes are the same whichever stores the app runs on: the embedded ones."""


SERVED = {
    "a2a_agent_card": ("GET", "/a2a/{assistant_id:str}/.well-known/agent-card.json"),
    "a2a_default_agent_card": ("GET", "/.well-known/agent-card.json"),
    "a2a_rpc": ("POST", "/a2a/{assistant_id:str}"),
    "ag_ui": ("POST", "/ag-ui"),
    "ag_ui_graph": ("POST", "/ag-ui/{assistant_id:str}"),
    "ai_sdk_chat": ("POST", "/ai-sdk/chat"),
    "ai_sdk_graph_chat": ("POST", "/ai-sdk/{assistant_id:str}/chat"),
    "ai_sdk_graph_reconnect": ("GET", "/ai-sdk/{assistant_id:str}/chat/{chat_id:str}/stream"),
    "ai_sdk_reconnect": ("GET", "/ai-sdk/chat/{chat_id:str}/stream"),
    "cancel_run": ("POST", "/runs/{run_id:str}/cancel"),
    "cancel_thread_run": ("POST", "/threads/{thread_id:str}/runs/{run_id:str}/cancel"),
    "chat": ("POST", "/chat"),
    "copy_thread_route": ("POST", "/threads/{thread_id:str}/copy"),
    "count_crons": ("POST", "/runs/crons/count"),
    "create_cron": ("POST", "/runs/crons"),
    "create_thread": ("POST", "/threads"),
    "create_thread_cron": ("POST", "/threads/{thread_id:str}/runs/crons"),
    "create_thread_run": ("POST", "/threads/{thread_id:str}/runs"),
    "delete_cron": ("DELETE", "/runs/crons/{cron_id:str}"),
    "delete_session": ("DELETE", "/sessions/{session_id:str}"),
    "delete_store_item": ("DELETE", "/store/items"),
    "delete_thread": ("DELETE", "/threads/{thread_id:str}"),
    "delete_thread_run": ("DELETE", "/threads/{thread_id:str}/runs/{run_id:str}"),
    "get_assistant": ("GET", "/assistants/{assistant_id:str}"),
    "get_assistant_graph": ("GET", "/assistants/{assistant_id:str}/graph"),
    "get_assistant_schemas": ("GET", "/assistants/{assistant_id:str}/schemas"),
    "get_document": ("GET", "/kb/{doc_id:str}"),
    "get_run": ("GET", "/runs/{run_id:str}"),
    "get_run_case": ("GET", "/runs/{run_id:str}/case"),
    "get_store_item": ("GET", "/store/items"),
    "get_thread": ("GET", "/threads/{thread_id:str}"),
    "get_thread_history": ("POST", "/threads/{thread_id:str}/history"),
    "get_thread_run": ("GET", "/threads/{thread_id:str}/runs/{run_id:str}"),
    "get_thread_state": ("GET", "/threads/{thread_id:str}/state"),
    "healthz": ("GET", "/healthz"),
    "index": ("GET", "/"),
    "join_run": ("GET", "/threads/{thread_id:str}/runs/{run_id:str}/join"),
    "join_run_stream": ("GET", "/threads/{thread_id:str}/runs/{run_id:str}/stream"),
    "join_stateless_run_stream": ("GET", "/runs/{run_id:str}/stream"),
    "list_approvals": ("GET", "/approvals"),
    "list_store_namespaces": ("POST", "/store/namespaces"),
    "list_thread_runs": ("GET", "/threads/{thread_id:str}/runs"),
    "mcp_delete": ("DELETE", "/mcp"),
    "mcp_get": ("GET", "/mcp"),
    "mcp_post": ("POST", "/mcp"),
    "metrics": ("GET", "/metrics"),
    "post_feedback": ("POST", "/runs/{run_id:str}/feedback"),
    "put_store_item": ("PUT", "/store/items"),
    "resume_chat": ("POST", "/chat/resume"),
    "run_events": ("GET", "/runs/{run_id:str}/events"),
    "search_assistants": ("POST", "/assistants/search"),
    "search_crons": ("POST", "/runs/crons/search"),
    "search_store_items": ("POST", "/store/items/search"),
    "search_threads": ("POST", "/threads/search"),
    "spa_asset": ("GET", "/spa/{name:str}"),
    "stream_stateless_run": ("POST", "/runs/stream"),
    "stream_thread_run": ("POST", "/threads/{thread_id:str}/runs/stream"),
    "update_cron": ("PATCH", "/runs/crons/{cron_id:str}"),
    "update_thread_state_route": ("POST", "/threads/{thread_id:str}/state"),
    "wait_stateless_run": ("POST", "/runs/wait"),
    "wait_thread_run": ("POST", "/threads/{thread_id:str}/runs/wait"),
}
"""Each handler's method and path, as the app served them when its handlers were one flat list."""


def served_handlers(app: Litestar) -> list[tuple[str, str, HTTPRouteHandler]]:
    return [
        (method, route.path, handler)
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        for method in handler.http_methods
        if method != "OPTIONS" and not route.path.startswith("/schema")
    ]


def test_every_handler_is_served_at_the_path_it_always_had(settings: Settings) -> None:
    app = create_app(settings)

    assert {handler.handler_name: (method, path) for method, path, handler in served_handlers(app)} == SERVED


def test_the_routes_of_a_thread_are_those_under_its_path(settings: Settings) -> None:
    under_a_thread = {
        handler.handler_name
        for _, path, handler in served_handlers(create_app(settings))
        if path.startswith(THREAD_PATH)
    }

    assert under_a_thread == {name for name, (_, path) in SERVED.items() if path.startswith("/threads/{thread_id:str}")}


@pytest.mark.parametrize("rate_limit_per_minute", [0, 10])
def test_only_the_routes_that_read_a_body_are_wrapped_in_the_body_checks(
    settings: Settings, rate_limit_per_minute: int
) -> None:
    app = create_app(msgspec.structs.replace(settings, rate_limit_per_minute=rate_limit_per_minute))
    wrapped = {
        handler.handler_name: any(
            getattr(each, "middleware", None) is JsonBodyCheck for each in handler.resolve_middleware()
        )
        for _, _, handler in served_handlers(app)
    }

    assert wrapped == {handler.handler_name: takes_body(handler) for _, _, handler in served_handlers(app)}
    assert sum(wrapped.values()) == 28


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/threads/t-1", "DELETE, GET, OPTIONS"),
        ("/threads/t-1/state", "GET, OPTIONS, POST"),
        ("/threads/t-1/runs", "GET, OPTIONS, POST"),
        ("/threads/t-1/runs/r-1", "DELETE, GET, OPTIONS"),
        ("/store/items", "DELETE, GET, OPTIONS, PUT"),
        ("/runs/crons/c-1", "DELETE, OPTIONS, PATCH"),
        ("/threads/t-1/copy", "OPTIONS, POST"),
        ("/mcp", "OPTIONS, POST"),  # GET and DELETE are served only to be refused
    ],
)
async def test_options_names_every_method_of_the_path(client: AsyncTestClient, path: str, allowed: str) -> None:
    response = await client.options(path)

    assert (response.status_code, response.headers["allow"]) == (204, allowed)
