"""Whatever a client sends the A2A endpoint, it answers a JSON-RPC error object with A2A 1.0's code (HTTP 200, as
A2A's JSON-RPC binding answers), never a 500: bad JSON, a batch, an unknown method, params that make no request, a
malformed or a file part, an A2A version not served, an unknown task; and an unknown assistant is a 404."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from litestar.testing import AsyncTestClient

URL = "/a2a/support"
HEADERS = {"A2A-Version": "1.0"}


def call(method: str, params: Any, call_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params}


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": list(parts)}}


async def error_of(
    client: AsyncTestClient[Any], body: Any = None, *, content: bytes | None = None, **headers: str
) -> dict[str, Any]:
    response = await client.post(
        URL,
        json=body if content is None else None,
        content=content,
        headers={**HEADERS, "Content-Type": "application/json", **headers},
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    assert answer["jsonrpc"] == "2.0"
    assert "result" not in answer
    return answer


@pytest.mark.parametrize(
    ("body", "code", "reason"),
    [
        ([call("GetTask", {"id": "r-1"})], -32600, "INVALID_REQUEST"),
        ({"id": 1, "method": "GetTask", "params": {"id": "r-1"}}, -32600, "INVALID_REQUEST"),
        (call("tasks/get", {"id": "r-1"}), -32601, "METHOD_NOT_FOUND"),
        (call("ListTasks", {}), -32601, "METHOD_NOT_FOUND"),
        (call("GetTask", {"id": 5}), -32602, "INVALID_PARAMS"),
        (call("SendMessage", {"message": {"role": "ROLE_USER"}}), -32602, "INVALID_PARAMS"),
        (call("SendMessage", message({})), -32602, "INVALID_PARAMS"),
        (call("SendMessage", message({"text": "hi", "data": {"a": 1}})), -32602, "INVALID_PARAMS"),
        (call("SendMessage", {"message": {"messageId": "m", "parts": []}}), -32602, "INVALID_PARAMS"),
        (call("SendMessage", message({"url": "https://example.com/a.pdf"})), -32005, "CONTENT_TYPE_NOT_SUPPORTED"),
        (
            call("SendMessage", {"message": {"messageId": "4111 1111 1111 1111", "parts": [{"text": "hi"}]}}),
            -32602,
            "INVALID_PARAMS",
        ),
        (
            call("SendMessage", {"message": {"messageId": "4111-1111-1111-1111", "parts": [{"text": "hi"}]}}),
            -32602,
            "INVALID_PARAMS",
        ),
        (
            call(
                "SendMessage",
                {"message": {"messageId": "m-2", "contextId": "DE89370400440532013000", "parts": [{"text": "hi"}]}},
            ),
            -32602,
            "INVALID_PARAMS",
        ),
        (call("GetTask", {"id": "r-unknown"}), -32001, "TASK_NOT_FOUND"),
        (call("CancelTask", {"id": "r-unknown"}), -32001, "TASK_NOT_FOUND"),
        (call("SubscribeToTask", {"id": "r-unknown"}), -32001, "TASK_NOT_FOUND"),
        (
            call(
                "SendMessage",
                {**message({"text": "hi"}), "configuration": {"taskPushNotificationConfig": {"url": "https://x"}}},
            ),
            -32003,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
    ],
)
async def test_a_bad_call_is_a_json_rpc_error(client: AsyncTestClient[Any], body: Any, code: int, reason: str) -> None:
    answer = await error_of(client, body)

    assert answer["error"]["code"] == code, answer
    (info,) = answer["error"]["data"]
    assert info["reason"] == reason
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"


async def test_a_body_that_is_not_json_is_a_parse_error(client: AsyncTestClient[Any]) -> None:
    answer = await error_of(client, content=b'{"jsonrpc": "2.0", "id": 1, "method": ')

    assert answer["error"]["code"] == -32700
    assert answer["id"] is None


async def test_the_error_names_the_call_it_answers(client: AsyncTestClient[Any]) -> None:
    answer = await error_of(client, call("Nope", {}, call_id="abc"))

    assert answer["id"] == "abc"


async def test_an_a2a_version_other_than_1_is_refused(client: AsyncTestClient[Any]) -> None:
    answer = await error_of(client, call("GetTask", {"id": "r-1"}), **{"A2A-Version": "0.3"})

    assert answer["error"]["code"] == -32009


async def test_an_unknown_assistant_is_a_404(client: AsyncTestClient[Any]) -> None:
    response = await client.post("/a2a/nope", json=call("GetTask", {"id": "r-1"}), headers=HEADERS)
    card = await client.get("/a2a/nope/.well-known/agent-card.json")

    assert response.status_code == card.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_metrics_count_the_calls_by_method_and_outcome(client: AsyncTestClient[Any]) -> None:
    await error_of(client, call("GetTask", {"id": "r-unknown"}))
    await error_of(client, call("Nope", {}))

    scraped = (await client.get("/metrics")).text

    assert 'harness_agent_calls_total{method="GetTask",outcome="TASK_NOT_FOUND",protocol="a2a"} 1.0' in scraped
    assert 'harness_agent_calls_total{method="other",outcome="METHOD_NOT_FOUND",protocol="a2a"} 1.0' in scraped
