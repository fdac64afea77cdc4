"""The turn rate limit (``HARNESS_RATE_LIMIT_PER_MINUTE``) counts a run started through A2A or MCP as a turn, as
it counts one started through any other route: the official clients of each, against a real uvicorn, get the
same 429 once the subject's turns are spent; calls that start no run are not counted (ADR 41)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import msgspec
import pytest
from a2a.client.errors import A2AClientError
from a2a.types.a2a_pb2 import GetTaskRequest
from mcp import MCPError

from tests.e2e.agent_protocol.turns import EXAMPLES, TOPIC
from tests.e2e.test_a2a import a2a_client, data_request, events
from tests.e2e.test_mcp import isolated, mcp_client

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

__all__ = ("isolated",)

_TURNS = 2


@pytest.fixture
def limited(serve: Callable[..., LiveServer], settings: Settings) -> LiveServer:
    return serve(
        msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", rate_limit_per_minute=_TURNS)
    )


async def test_a2a_messages_are_turns_and_reading_a_task_is_not(limited: LiveServer) -> None:
    client = await a2a_client(limited, "research", streaming=False)
    sent = [await events(client.send_message(data_request(TOPIC))) for _ in range(_TURNS)]
    streaming = await a2a_client(limited, "research")

    with pytest.raises(A2AClientError, match="429"):
        await events(client.send_message(data_request(TOPIC)))
    with pytest.raises(A2AClientError, match="429"):
        await events(streaming.send_message(data_request(TOPIC)))
    task = await client.get_task(GetTaskRequest(id=sent[0][0].task.id))
    assert task.id == sent[0][0].task.id, "reading a task starts no run"
    async with httpx.AsyncClient() as http:
        refused = await http.post(
            f"{limited.url}/a2a/research",
            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}},
        )
    assert refused.status_code == 429
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "retry-after" in refused.headers
    await client.close()
    await streaming.close()


async def test_mcp_tool_calls_are_turns_and_listing_tools_is_not(limited: LiveServer) -> None:
    async with mcp_client(limited) as client:
        for _ in range(_TURNS):
            assert not (await client.call_tool("research", TOPIC)).is_error
        listed = await client.list_tools()
        assert listed.tools, "listing the tools starts no run"
        with pytest.raises(MCPError):
            await client.call_tool("research", TOPIC)
    async with httpx.AsyncClient() as http:
        call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "research", "arguments": TOPIC}}
        refused = await http.post(
            f"{limited.url}/mcp", json=call, headers={"Accept": "application/json, text/event-stream"}
        )
    assert refused.status_code == 429
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "retry-after" in refused.headers
