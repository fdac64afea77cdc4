"""MCP over Streamable HTTP, driven by the official ``mcp`` client against a real uvicorn serving
examples/langgraph.json (and the tests' gated project): the tools listed, a call of each example graph with its
progress, a run that pauses at an interrupt, a cancelled call, and the bearer tokens of every route."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import httpx2
import msgspec
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitResult

from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, EXAMPLES, GATED_GRAPH, REFUND, REFUND_APPROVAL, REPORT, TOPIC
from tests.support.graph_projects import isolated_loading, write_project

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

REFUNDED = "Refunded 42.00 EUR for order A-1001."


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def examples(serve: Callable[..., LiveServer], settings: Settings) -> LiveServer:
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json"))


@pytest.fixture
def gated(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    config = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    return serve(msgspec.structs.replace(settings, graphs_config=config))


def mcp_client(server: LiveServer, token: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60))
    return Client(streamable_http_client(f"{server.url}/mcp", http_client=http))


async def test_one_tool_per_graph_with_its_schemas(examples: LiveServer) -> None:
    async with mcp_client(examples) as client:
        listed = await client.list_tools()

    tools = {tool.name: tool for tool in listed.tools}
    assert {"react_agent", "research"} <= set(tools)
    research = tools["research"]
    assert "researches each in a subgraph" in (research.description or "")
    assert "topic" in research.input_schema["properties"]
    assert research.output_schema is not None
    assert "report" in research.output_schema["properties"]


async def test_a_call_runs_the_graph_and_reports_its_progress(examples: LiveServer) -> None:
    progress: list[tuple[float, str | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async with mcp_client(examples) as client:
        result = await client.call_tool("research", TOPIC, progress_callback=report)

    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["report"] == REPORT
    assert result.content[0].type == "text"
    messages = [message or "" for _, message in progress]
    assert "node plan started" in messages or any(m.startswith("node ") for m in messages)
    assert any("searching" in message for message in messages), "custom writes are progress"
    assert [done for done, _ in progress] == sorted({done for done, _ in progress}), "progress only grows"


async def test_a_run_that_stops_at_an_interrupt_names_the_pending_approval(examples: LiveServer) -> None:
    async with mcp_client(examples) as client:
        result = await client.call_tool("react_agent", REFUND)

    assert not result.is_error
    assert result.structured_content is not None
    pending = result.structured_content["pending_approval"]
    assert pending["action"] == "issue_refund"
    assert result.structured_content["__interrupt__"][0]["value"] == REFUND_APPROVAL
    text = result.content[0].text  # type: ignore[union-attr]
    assert "approval" in text
    assert f"/threads/{pending['thread_id']}/runs" in text, "it says how to decide it"
    async with httpx.AsyncClient() as http:
        run = (await http.get(f"{examples.url}/runs/{pending['run_id']}")).json()
    assert run["status"] == "waiting"


async def test_a_cancelled_call_ends_its_run(gated: LiveServer, tmp_path: Path) -> None:
    holding = anyio.Event()

    async def report(done: float, total: float | None, message: str | None) -> None:
        if message and "holding" in message:
            holding.set()

    async with mcp_client(gated) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "gated", {"gate": str(tmp_path / "never")}, None, report)
            with anyio.fail_after(20):
                await holding.wait()
            group.cancel_scope.cancel()

        async with httpx.AsyncClient() as http:
            for _ in range(200):
                threads = (await http.post(f"{gated.url}/threads/search", json={})).json()
                (thread,) = [thread for thread in threads if thread["thread_id"].startswith("mcp-")]
                (run,) = (await http.get(f"{gated.url}/threads/{thread['thread_id']}/runs")).json()
                status = (await http.get(f"{gated.url}/runs/{run['run_id']}")).json()["status"]
                if status != "running":
                    break
                await anyio.sleep(0.05)
    assert status == "cancelled"


async def test_bearer_tokens_as_on_every_route(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [{"token": ALICE, "subject": "alice", "roles": ["user"]}]}))
    served = serve(
        msgspec.structs.replace(
            settings, graphs_config=EXAMPLES / "langgraph.json", auth=AuthConfig(tokens_file=tokens)
        )
    )
    async with httpx.AsyncClient() as http:
        refused = await http.post(f"{served.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401

    async with mcp_client(served, ALICE) as client:
        result = await client.call_tool("research", TOPIC)
    assert result.structured_content is not None
    assert result.structured_content["report"] == REPORT


async def test_a_client_that_declares_elicitation_is_asked_and_its_answer_resumes_the_run(
    examples: LiveServer,
) -> None:
    asked: list[Any] = []

    async def decide(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"decision": "approve"})

    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=60))
    transport = streamable_http_client(f"{examples.url}/mcp", http_client=http)
    async with Client(transport, elicitation_callback=decide) as client:
        result = await client.call_tool("react_agent", REFUND)

    (params,) = asked
    assert "Refund 42.00 EUR" in params.message
    assert params.requested_schema["properties"]["decision"]["enum"] == ["approve", "reject"]
    assert not result.is_error
    assert result.content[0].text == REFUNDED  # type: ignore[union-attr]
    assert result.structured_content is not None
    assert "pending_approval" not in result.structured_content
