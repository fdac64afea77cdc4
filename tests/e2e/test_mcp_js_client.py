"""MCP over Streamable HTTP driven by the official MCP TypeScript SDK (``@modelcontextprotocol/sdk``'s ``Client``
over ``StreamableHTTPClientTransport``, run by Node) against a real uvicorn: the handshake, ping, the tools, a call
with its progress, a call that stops at an interrupt, one whose client is asked by elicitation, an aborted call,
bearer tokens, and what is not served. The SDK validates every message with its schemas, and each call's
``structuredContent`` against the tool's ``outputSchema``; these tests check what it made of them. The servers
are test_mcp.py's fixtures (the examples, the gated project).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, EXAMPLES, REFUND_APPROVAL, REPORT
from tests.e2e.test_mcp import REFUNDED, examples, gated, isolated
from tests.support.node import run_node

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

__all__ = ("examples", "gated", "isolated")  # test_mcp.py's fixtures, served to these tests too

CLIENT = Path(__file__).parent / "mcp-js-client"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


def drive(server: LiveServer, scenario: str, *args: str) -> dict[str, Any]:
    result = run_node(CLIENT, "drive.mjs", server.url, scenario, *args)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_the_js_sdk_lists_the_tools_and_calls_them_with_progress(examples: LiveServer) -> None:
    report = drive(examples, "examples")

    handshake = report["handshake"]
    assert handshake["protocolVersion"] == "2025-11-25"
    assert handshake["sessionId"], "initialize gives a session id"
    assert handshake["server"]["name"] == "agent-harness"
    assert handshake["capabilities"] == {"tools": {"listChanged": False}}
    assert "interrupt()" in handshake["instructions"]
    assert report["ping"] == {}

    tools = {tool["name"]: tool for tool in report["tools"]}
    assert {"support", "react_agent", "research"} <= set(tools), sorted(tools)
    research = tools["research"]
    assert "researches each in a subgraph" in research["description"]
    assert "topic" in research["inputKeys"]
    assert "report" in research["outputKeys"]
    assert "messages" in tools["react_agent"]["inputKeys"]

    called = report["research"]
    assert called["isError"] is False, called["content"]
    assert called["structuredContent"]["report"] == REPORT, "it matched the tool's output schema, as the SDK checks"
    assert called["content"][0]["type"] == "text"
    progress = report["progress"]
    messages = [step["message"] for step in progress]
    assert messages[:2] == ["node planner started", "node planner ok"], messages
    assert "node research_step:search started" in messages, "a subgraph's node is parent:node"
    searches = [message for message in messages if "searching" in message]
    assert searches == ['{"searching":"clouds"}', '{"searching":"rain"}'], "custom writes are progress, as JSON"
    assert messages[-1] == "node write_report ok"
    assert [step["done"] for step in progress] == list(range(1, len(progress) + 1)), "progress only grows"

    paused = report["paused"]
    assert paused["isError"] is False
    pending = paused["structuredContent"]["pending_approval"]
    assert pending["action"] == "issue_refund"
    assert paused["structuredContent"]["__interrupt__"][0]["value"] == REFUND_APPROVAL
    assert f"/threads/{pending['thread_id']}/runs" in paused["content"][0]["text"], "it says how to decide it"

    refused = report["refused"]
    assert refused["unknownTool"]["code"] == INVALID_PARAMS, refused["unknownTool"]
    assert "no_such_tool" in refused["unknownTool"]["message"]
    assert refused["resources"]["code"] == METHOD_NOT_FOUND, "resources are not served"
    assert refused["prompts"]["code"] == METHOD_NOT_FOUND, "prompts are not served"


def test_the_js_sdk_is_asked_by_elicitation_and_its_answer_resumes_the_run(examples: LiveServer) -> None:
    report = drive(examples, "elicit")

    (asked,) = report["asked"]
    assert "Refund 42.00 EUR" in asked["message"]
    assert asked["requestedSchema"]["properties"]["decision"]["enum"] == ["approve", "reject"]
    approved = report["approved"]
    assert approved["isError"] is False, approved["content"]
    assert approved["content"][0]["text"] == REFUNDED
    assert "pending_approval" not in approved["structuredContent"]


def test_an_aborted_call_of_the_js_sdk_cancels_its_run(gated: LiveServer, tmp_path: Path) -> None:
    report = drive(gated, "cancel", str(tmp_path / "never"))

    assert any("holding" in (message or "") for message in report["progress"])
    assert report["cancelled"] is not None, "the aborted call failed on the client's side"
    assert report["status"] == "cancelled", "notifications/cancelled ended the run"


@pytest.mark.parametrize("stores", ["embedded"], indirect=True)
def test_the_js_sdk_sends_its_bearer_token(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [{"token": ALICE, "subject": "alice", "roles": ["user"]}]}))
    auth = AuthConfig(tokens_file=tokens)
    served = serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", auth=auth))

    report = drive(served, "examples", ALICE)

    assert report["research"]["structuredContent"]["report"] == REPORT
    assert report["anonymous"] is not None, "without the token the client cannot connect"
    assert "401" in report["anonymous"]["message"], report["anonymous"]
