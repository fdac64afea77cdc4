"""What ``/mcp`` answers each kind of message, in-process: the handshake with a session id, a notification
accepted with 202, and every bad message a JSON-RPC error object (never a 500); no server-initiated stream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from litestar.testing import AsyncTestClient

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def request(method: str, params: Any = None, call_id: Any = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": call_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


async def test_initialize_negotiates_a_handshake_revision_and_gives_a_session(client: AsyncTestClient[Any]) -> None:
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    response = await client.post("/mcp", json=request("initialize", params), headers=HEADERS)
    newest = await client.post(
        "/mcp", json=request("initialize", {**params, "protocolVersion": "2099-01-01"}), headers=HEADERS
    )

    result = response.json()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert response.headers["mcp-session-id"]
    assert newest.json()["result"]["protocolVersion"] == "2025-11-25"


async def test_a_notification_is_accepted_with_no_body(client: AsyncTestClient[Any]) -> None:
    response = await client.post(
        "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=HEADERS
    )
    cancelled = await client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
        headers={**HEADERS, "Mcp-Session-Id": "s-1"},
    )

    assert response.status_code == cancelled.status_code == 202
    assert response.content == b""


async def test_tools_list_names_each_graph(client: AsyncTestClient[Any]) -> None:
    response = await client.post("/mcp", json=request("tools/list"), headers=HEADERS)

    (tool,) = response.json()["result"]["tools"]
    assert tool["name"] == "support"
    assert tool["inputSchema"]["type"] == "object"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"jsonrpc": "2.0", "id": 1, "method": ', -32700),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
        (b'{"id": 1, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "resources/list"}', -32601),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "server/discover"}', -32601),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "nope"}}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "support", "arguments": 3}}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": []}', -32602),
    ],
)
async def test_a_bad_message_is_a_json_rpc_error(client: AsyncTestClient[Any], body: bytes, code: int) -> None:
    response = await client.post("/mcp", content=body, headers=HEADERS)

    assert response.status_code == 200
    assert response.json()["error"]["code"] == code


async def test_there_is_no_server_initiated_stream(client: AsyncTestClient[Any]) -> None:
    assert (await client.get("/mcp")).status_code == 405
    assert (await client.delete("/mcp")).status_code == 405


async def test_a_call_answers_json_to_a_client_that_takes_no_stream(client: AsyncTestClient[Any]) -> None:
    arguments = {"messages": [{"role": "user", "content": "Where is my order A-1001?"}]}
    response = await client.post(
        "/mcp",
        json=request("tools/call", {"name": "support", "arguments": arguments}, call_id="c-1"),
        headers={"Accept": "application/json", "Mcp-Session-Id": "s-2"},
    )

    answer = response.json()
    assert answer["id"] == "c-1"
    assert answer["result"]["isError"] is False
    assert answer["result"]["content"][0]["text"]
