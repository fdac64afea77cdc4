"""A JSON answer that waits for its run (the Agent Protocol's ``/runs/wait``, A2A's blocking ``SendMessage``, an MCP
``tools/call`` answered as JSON) and lasts ``HARNESS_STREAM_MAX_S`` before the run settles ends with a whole JSON
document of the run as far as it came, never a body of keepalives cut short; the run goes on and is read again.

The run is the tests' gated graph holding at a file that does not exist yet, so it is busy for exactly as long as
a test needs; each test runs on the embedded and on the shared stores (the ``settings`` fixture). A wait that
never ends (an answer the limit does not reach: whitespace keepalives for ever) fails at ``ENDS_WITHIN_S``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import httpx
import msgspec
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_data_part, new_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState
from langgraph_sdk import get_client

from tests.e2e.agent_protocol.turns import EXAMPLES, GATED_GRAPH
from tests.support.graph_projects import isolated_loading, write_project

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

ENDS_WITHIN_S = 20


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def gated(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The gated graph, with answers that last half a second at most and a heartbeat every 50 ms."""
    config = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    return serve(msgspec.structs.replace(settings, graphs_config=config, heartbeat_s=0.05, stream_max_s=0.5))


async def test_a_wait_past_the_limit_answers_the_state_so_far_and_a_join_the_end(
    gated: LiveServer, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    async with get_client(url=gated.url, timeout=30) as client:
        thread_id = (await client.threads.create())["thread_id"]
        async with asyncio.timeout(ENDS_WITHIN_S):
            so_far = await client.runs.wait(thread_id, "gated", input={"gate": str(gate)})
        (run,) = await client.runs.list(thread_id)
        status_then = run["status"]
        gate.touch()
        ended = await client.runs.join(thread_id, run["run_id"])

    assert so_far == {"gate": str(gate), "steps": ["first"]}, "the state as its last values said, no __error__"
    assert status_then == "running", "the run went on past the answer"
    assert ended == {"gate": str(gate), "steps": ["first", "hold", "last"]}


async def test_a_blocking_a2a_message_past_the_limit_answers_the_working_task(
    gated: LiveServer, tmp_path: Path
) -> None:
    http = httpx.AsyncClient(timeout=30)
    factory = ClientFactory(ClientConfig(streaming=False, httpx_client=http))
    client = await factory.create_from_url(f"{gated.url}/a2a/gated")
    message = new_message([new_data_part({"gate": str(tmp_path / "never")})], role=Role.ROLE_USER)

    async with asyncio.timeout(ENDS_WITHIN_S):
        answers = [answer async for answer in client.send_message(SendMessageRequest(message=message))]
    await client.close()

    (answer,) = answers
    assert answer.task.status.state == TaskState.TASK_STATE_WORKING


async def test_an_mcp_call_answered_as_json_past_the_limit_says_where_its_result_is_read(
    gated: LiveServer, tmp_path: Path
) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "gated", "arguments": {"gate": str(tmp_path / "never")}},
    }
    async with httpx.AsyncClient(base_url=gated.url, timeout=30) as http:
        async with asyncio.timeout(ENDS_WITHIN_S):
            answer = await http.post("/mcp", json=call, headers={"Accept": "application/json"})

    assert answer.status_code == 200
    result = answer.json()["result"]
    run_id, thread_id = answer.headers["run-id"], answer.headers["session-id"]
    assert result["isError"] is True
    assert f"GET /threads/{thread_id}/runs/{run_id}/join" in result["content"][0]["text"]
