"""AG-UI and the AI SDK for any registered graph, driven by their official clients (``@ag-ui/client``'s HttpAgent,
the ``ai`` package's chat, run by Node) against a real uvicorn serving examples/langgraph.json and a graph of the
test's own: a graph that streams a chat model and calls tools, one whose approval is an ``interrupt()`` inside a
tool, a subgraph in a loop with custom writes, and one that only writes custom events. Each client validates the
stream it reads (event order, open and closed messages, tool calls and steps, every event's schema) and fails on
a violation; the tests check what it made of each run, and that the thread holds what the graph made of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, EXAMPLES
from tests.support.graph_projects import isolated_loading, write_project
from tests.support.node import run_node

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

AGUI = Path(__file__).parent / "agui-client"
AI_SDK = Path(__file__).parent / "ai-sdk-client"
APPROVER = "carol-token-0123456789abcdef"
REFUND = "Please refund order A-1001."
TICKER = """
    import operator
    from typing import Annotated

    from langgraph.config import get_stream_writer
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict


    class State(TypedDict, total=False):
        count: int
        ticks: Annotated[list[int], operator.add]


    def tick(state: State) -> State:
        write = get_stream_writer()
        for index in range(state["count"]):
            write({"tick": index})
        return {"ticks": list(range(state["count"]))}


    graph = StateGraph(State).add_node("tick", tick).add_edge(START, "tick").compile(name="ticker")
"""
"""A graph with no chat model and no messages: its input is not a conversation, its progress only custom writes."""


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def examples(serve: Callable[..., LiveServer], settings: Settings) -> LiveServer:
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json"))


@pytest.fixture
def ticker(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    config = write_project(
        tmp_path / "ticker", {"ticker.py": TICKER, "langgraph.json": {"graphs": {"ticker": "./ticker.py:graph"}}}
    )
    return serve(msgspec.structs.replace(settings, graphs_config=config))


@pytest.fixture
def approvals_required(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
        {"token": APPROVER, "subject": "carol", "roles": ["approver"]},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    auth = AuthConfig(tokens_file=tokens, approver_role="approver")
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", auth=auth))


def ag_ui(server: LiveServer, assistant: str, thread_id: str, **spec: Any) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(
        run_node(AGUI, "graph.mjs", server.url, assistant, thread_id, json.dumps(spec)).stdout
    )
    assert report["warnings"] == [], "the client warns about nothing it received"
    return report


def ai_sdk(server: LiveServer, assistant: str, chat_id: str, **spec: Any) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(
        run_node(AI_SDK, "graph.mjs", server.url, assistant, chat_id, json.dumps(spec)).stdout
    )
    assert report["warnings"] == [], "the client warns about nothing it received"
    return report


def thread_messages(server: LiveServer, thread_id: str, token: str | None = None) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    state = httpx.get(f"{server.url}/threads/{thread_id}/state", headers=headers).json()
    messages: list[dict[str, Any]] = state["values"]["messages"]
    return messages


def test_ag_ui_runs_a_react_agent_through_its_tools_and_its_approval(examples: LiveServer) -> None:
    report = ag_ui(examples, "react_agent", "t_agui_react", message=REFUND, decision="approve", followUp="Thanks!")
    paused, resumed, later = report["runs"]

    assert [run["failure"] for run in report["runs"]] == [None, None, None]
    assert paused["steps"] == ["agent", "tools", "agent", "tools"]
    assert paused["toolCalls"] == ["lookup_order", "issue_refund"]
    assert '"A-1001"' in paused["toolResults"][0]
    assert paused["outcome"]["kind"] == "interrupt"
    (interrupt,) = paused["outcome"]["interrupts"]
    assert interrupt["metadata"]["action"] == "issue_refund"
    assert interrupt["metadata"]["value"]["args"] == {"order_id": "A-1001", "reason": "the customer asked"}
    assert interrupt["toolCallId"], "the interrupt names the model's call of the tool it interrupted"
    assert paused["snapshots"] > 0
    assert paused["types"][-1] == "RUN_FINISHED"

    assert resumed["outcome"]["kind"] == "success"
    assert resumed["harnessRunId"] == paused["harnessRunId"], "the answer continues the same run"
    assert resumed["toolResults"] == ["Refunded 42.00 EUR for order A-1001."]
    assert "Refunded 42.00 EUR" in "".join(resumed["texts"].values())
    assert resumed["lastSnapshot"]["messages"][-1]["content"].startswith("Refunded")

    assert later["outcome"]["kind"] == "success"
    assert later["harnessRunId"] != resumed["harnessRunId"]
    held = thread_messages(examples, "t_agui_react")
    ids = [message["id"] for message in held]
    assert len(ids) == len(set(ids)), "messages the client sent back are merged by id, not added twice"
    assert [message["content"] for message in held if message["type"] == "human"] == [REFUND, "Thanks!"]
    assert [message["id"] for message in report["messages"]] == ids, "the client's conversation is the thread's"


def test_ag_ui_shows_a_subgraph_in_a_loop_and_its_custom_writes(examples: LiveServer) -> None:
    report = ag_ui(
        examples, "research", "t_agui_research", forwardedProps={"input": {"topic": "How do clouds make rain?"}}
    )
    (run,) = report["runs"]

    assert run["failure"] is None
    assert run["outcome"]["kind"] == "success"
    assert "research_step:search" in run["steps"]
    assert "research_step:summarize" in run["steps"]
    searching = [event["value"] for event in run["custom"] if event["name"] == "harness.custom"]
    assert searching
    assert all("searching" in value for value in searching)
    assert run["texts"], "the model's notes and report stream as text messages"
    assert "report" in run["outcome"]["result"]


def test_ag_ui_runs_a_graph_that_only_writes_custom_events(ticker: LiveServer) -> None:
    report = ag_ui(ticker, "ticker", "t_agui_ticker", forwardedProps={"input": {"count": 3}})
    (run,) = report["runs"]

    assert run["failure"] is None
    assert run["steps"] == ["tick"]
    assert [event["value"] for event in run["custom"] if event["name"] == "harness.custom"] == [
        {"tick": 0},
        {"tick": 1},
        {"tick": 2},
    ]
    assert run["texts"] == {}
    assert run["outcome"]["result"] == {"count": 3, "ticks": [0, 1, 2]}


def test_the_ai_sdk_runs_a_react_agent_through_its_tools_and_its_approval(examples: LiveServer) -> None:
    report = ai_sdk(examples, "react_agent", "c_aisdk_react", message=REFUND, decision="approve", followUp="Thanks!")

    first = report["first"]["message"]
    lookup, called, approval = first["tools"]
    assert (lookup["type"], lookup["state"]) == ("tool-lookup_order", "output-available")
    assert '"A-1001"' in lookup["output"]
    assert (called["type"], called["state"]) == ("tool-issue_refund", "input-available"), "the model's call"
    assert (approval["type"], approval["state"]) == ("tool-issue_refund", "approval-requested")
    assert approval["input"] == called["input"] == {"order_id": "A-1001", "reason": "the customer asked"}
    assert report["first"]["status"] == "ready"

    decided = report["decided"]["message"]
    assert decided["id"] == first["id"], "the approval continues the same assistant message (the run)"
    refunds = [tool for tool in decided["tools"] if tool["type"] == "tool-issue_refund"]
    assert [tool["state"] for tool in refunds] == ["output-available"] * 2, " ".join(report["chunkTypes"])
    assert [tool["output"] for tool in refunds] == ["Refunded 42.00 EUR for order A-1001."] * 2
    assert "Refunded 42.00 EUR" in decided["text"]
    assert report["followed"]["status"] == "ready"
    ids = [message["id"] for message in thread_messages(examples, "c_aisdk_react")]
    assert len(ids) == len(set(ids))


def test_the_ai_sdk_says_a_rejected_approval_and_replays_a_paused_run(examples: LiveServer) -> None:
    paused = ai_sdk(examples, "react_agent", "c_aisdk_replay", message=REFUND, replay=True)
    assert paused["replayed"]["tools"] == paused["first"]["message"]["tools"], "the replay rebuilds the same message"

    report = ai_sdk(examples, "react_agent", "c_aisdk_reject", message=REFUND, decision="reject")
    states = [tool["state"] for tool in report["decided"]["message"]["tools"] if tool["type"] == "tool-issue_refund"]
    assert states == ["output-available", "output-denied"], (
        "the model's call says it was rejected; the approval, denied"
    )
    assert "rejected" in report["decided"]["message"]["text"]


def test_the_ai_sdk_runs_a_subgraph_and_a_graph_without_messages(examples: LiveServer, ticker: LiveServer) -> None:
    research = ai_sdk(examples, "research", "c_aisdk_research", message="go", body={"input": {"topic": "Rain"}})
    message = research["first"]["message"]
    assert research["first"]["status"] == "ready"
    assert message["text"], "the model's text streams"
    assert any(part["type"] == "data-custom" and "searching" in part["data"] for part in message["data"])

    ticks = ai_sdk(ticker, "ticker", "c_aisdk_ticker", message="go", body={"input": {"count": 2}})
    assert [part["data"] for part in ticks["first"]["message"]["data"] if part["type"] == "data-custom"] == [
        {"tick": 0},
        {"tick": 1},
    ]
    assert ticks["first"]["message"]["steps"] == 1


def test_only_an_approver_answers_through_either_protocol(approvals_required: LiveServer) -> None:
    refused = ag_ui(approvals_required, "react_agent", "t_agui_gated", message=REFUND, decision="approve", token=ALICE)
    assert "403" in refused["runs"][1]["failure"]
    assert thread_messages(approvals_required, "t_agui_gated", ALICE)[-1]["type"] == "ai", "still waiting"

    approved = ag_ui(
        approvals_required,
        "react_agent",
        "t_agui_gated_2",
        message=REFUND,
        decision="approve",
        token=ALICE,
        approverToken=APPROVER,
    )
    assert approved["runs"][1]["outcome"]["kind"] == "success"
    assert approved["runs"][1]["toolResults"] == ["Refunded 42.00 EUR for order A-1001."]

    chat = ai_sdk(approvals_required, "react_agent", "c_aisdk_gated", message=REFUND, decision="approve", token=ALICE)
    assert chat["decided"]["error"] is not None, "the chat reports the 403"
    assert "Refunded" not in json.dumps(thread_messages(approvals_required, "c_aisdk_gated", ALICE))
