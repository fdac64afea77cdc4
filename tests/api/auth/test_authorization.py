"""The routes langgraph.json's ``@auth.on`` handlers guard: named by operation id, so a route renamed or added to
the Agent Server's API without a resource and action would go unguarded silently; these tests make that loud."""

from __future__ import annotations

from typing import Any

import pytest

from api.app import create_app
from api.auth.route_actions import ROUTE_ACTIONS
from api.routes.agent_protocol import AGENT_PROTOCOL_ROUTES
from api.settings import Settings


def operation_ids() -> set[str]:
    app = create_app(Settings())
    return {
        handler.operation_id
        for route in app.routes
        for handler in getattr(route, "route_handlers", [])
        if isinstance(handler.operation_id, str)
    }


def test_every_guarded_operation_is_a_route_of_the_app() -> None:
    assert set(ROUTE_ACTIONS) - operation_ids() == set()


def test_every_route_of_the_agent_server_api_has_its_resource_and_action() -> None:
    unguarded = [handler.operation_id for handler in AGENT_PROTOCOL_ROUTES if handler.operation_id not in ROUTE_ACTIONS]

    assert unguarded == []


@pytest.mark.parametrize(
    ("operation", "path", "query", "body", "expected"),
    [
        (
            "createThread",
            {},
            {},
            {"thread_id": "t-1", "metadata": {"a": 1}},
            {"thread_id": "t-1", "metadata": {"a": 1}, "if_exists": "raise", "ttl": None},
        ),
        ("getThreadRun", {"thread_id": "t-1", "run_id": "r-1"}, {}, None, {"thread_id": "t-1", "run_id": "r-1"}),
        ("getStoreItem", {}, {"namespace": "a.b", "key": "k"}, None, {"namespace": ("a", "b"), "key": "k"}),
        (
            "putStoreItem",
            {},
            {},
            {"namespace": ["a"], "key": "k", "value": {"v": 1}},
            {"namespace": ("a",), "key": "k", "value": {"v": 1}, "index": None},
        ),
        (
            "runAgUiGraph",
            {"assistant_id": "echo"},
            {},
            {"threadId": "t-2"},
            {"thread_id": "t-2", "assistant_id": "echo"},
        ),
    ],
)
def test_the_value_is_the_agent_servers(
    operation: str, path: dict[str, Any], query: dict[str, str], body: Any, expected: dict[str, Any]
) -> None:
    _, _, value_of = ROUTE_ACTIONS[operation]

    value = value_of(path, query, body)

    assert {key: value[key] for key in expected} == expected


def test_a_run_value_carries_the_request_as_kwargs_and_its_metadata_apart() -> None:
    _, action, value_of = ROUTE_ACTIONS["streamThreadRun"]

    value = value_of({"thread_id": "t-1"}, {}, {"assistant_id": "echo", "input": {"n": 1}, "metadata": {"m": 1}})

    assert action == "create_run"
    assert (value["thread_id"], value["assistant_id"], value["metadata"]) == ("t-1", "echo", {"m": 1})
    assert value["kwargs"] == {"input": {"n": 1}}
    assert value["multitask_strategy"] == "enqueue", "the Agent Server's default"
