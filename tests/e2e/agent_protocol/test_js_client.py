"""The official LangGraph JS SDK (``@langchain/langgraph-sdk``'s Client, run by Node) against a real uvicorn: the
ReAct example streamed to its interrupt and resumed by a command, as a TypeScript application does it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.e2e.agent_protocol.turns import REFUND_APPROVAL, agent_server_id
from tests.support.node import run_node

if TYPE_CHECKING:
    from tests.e2e.conftest import LiveServer

CLIENT = Path(__file__).resolve().parents[1] / "langgraph-js"


def test_the_js_sdk_streams_to_the_interrupt_and_resumes_the_same_run(examples: LiveServer) -> None:
    result = run_node(CLIENT, "drive.mjs", examples.url)
    steps: dict[str, dict[str, Any]] = {}
    for line in result.stdout.splitlines():
        step = json.loads(line)
        steps[step.pop("step")] = step

    assert {assistant["graph_id"]: assistant["assistant_id"] for assistant in steps["assistants"]["assistants"]} == {
        graph_id: agent_server_id(graph_id) for graph_id in ("support", "react_agent", "research")
    }
    thread_id = steps["thread"]["thread_id"]
    assert steps["thread"]["status"] == "idle"

    paused = steps["paused"]
    run_id = paused["metadata"]["run_id"]
    assert paused["metadata"]["thread_id"] == thread_id
    assert paused["events"][0] == "metadata"
    assert paused["events"].count("messages") > 10, "the answers stream word by word"
    assert paused["said"] == ["Let me look up order A-1001.", "I will ask for the refund of order A-1001."]
    assert paused["end"] == {"run_id": run_id, "status": "interrupted"}
    assert [interrupt["value"] for interrupt in paused["interrupts"]] == [REFUND_APPROVAL]

    assert steps["state"]["next"] == ["tools"]
    assert [interrupt["value"] for interrupt in steps["state"]["interrupts"]] == [REFUND_APPROVAL]
    assert steps["state"]["status"] == "interrupted"

    resumed = steps["resumed"]
    assert resumed["metadata"]["run_id"] == run_id, "the command continues the paused run"
    assert resumed["end"] == {"run_id": run_id, "status": "success"}
    assert resumed["said"] == ["Refunded 42.00 EUR for order A-1001."]
    assert resumed["messages"][-2:] == [
        {"type": "tool", "content": "Refunded 42.00 EUR for order A-1001."},
        {"type": "ai", "content": "Refunded 42.00 EUR for order A-1001."},
    ]
    assert steps["runs"]["runs"] == [{"run_id": run_id, "status": "success"}]


def test_the_js_sdk_reaches_the_store_crons_and_the_queue(examples: LiveServer) -> None:
    result = run_node(CLIENT, "platform.mjs", examples.url)
    steps = {step.pop("step"): step for step in map(json.loads, result.stdout.splitlines())}

    store = steps["store"]
    assert store["item"] == {
        "namespace": ["memories", "js"],
        "key": "drink",
        "value": {"drink": "tea", "n": 1},
        "createdAt": "string",
    }
    assert store["found"] == ["drink"]
    assert store["namespaces"] == [["memories", "js"]]
    assert store["gone"] == {"status": 404}

    crons = steps["crons"]
    assert crons["created"]["schedule"] == "0 9 1 1 *"
    assert crons["created"]["timezone"] == "Europe/Paris"
    assert crons["created"]["enabled"] is True
    assert crons["nextRun"].endswith(("-01-01T08:00:00+00:00", "-01-01T08:00:00Z")), crons["nextRun"]
    assert crons["searched"] == [True]
    assert (crons["counted"], crons["after"]) == (1, 0)
    assert crons["updated"]["enabled"] is False

    queue = steps["enqueue"]
    assert queue["paused"] == 1
    assert queue["busy"] == "interrupted"
    assert queue["queued"] == "pending", "a second message on a busy thread waits its turn"
    assert {"queued": True, "status": "pending"} in queue["listed"]
    assert queue["cancelled"] == "interrupted", "cancelled while pending: it never ran"
