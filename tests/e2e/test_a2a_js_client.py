"""A2A 1.0 driven by the official A2A JavaScript SDK (``@a2a-js/sdk``'s ``ClientFactory``, its JSON-RPC transport
picked from the card, run by Node) against a real uvicorn: the cards, a blocking and a streamed message, an
``interrupt()`` as ``input-required`` answered by the next message, a cancel, and the errors the SDK maps to its
own classes. The SDK parses every answer into its protobuf types and fails on any it cannot read; these tests
check what it made of them. The servers are test_a2a.py's fixtures (the examples, the gated project).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.e2e.agent_protocol.turns import REFUND_APPROVAL, REPORT
from tests.e2e.test_a2a import REFUNDED, examples, gated, isolated
from tests.support.node import run_node

if TYPE_CHECKING:
    from tests.e2e.conftest import LiveServer

__all__ = ("examples", "gated", "isolated")  # test_a2a.py's fixtures, served to these tests too

CLIENT = Path(__file__).parent / "a2a-js-client"


def drive(server: LiveServer, scenario: str, *args: str) -> dict[str, Any]:
    result = run_node(CLIENT, "drive.mjs", server.url, scenario, *args)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def states(events: list[dict[str, Any]]) -> list[str]:
    return [event["state"] for event in events if event["kind"] in ("task", "statusUpdate")]


def distinct(values: list[str]) -> list[str]:
    """``values`` without repeats in a row (a working task sends many working updates)."""
    return [value for i, value in enumerate(values) if i == 0 or values[i - 1] != value]


def text(events: list[dict[str, Any]]) -> str:
    """The model's text, as its chunks came (the working updates' text parts)."""
    return "".join(event["text"] for event in events if event.get("state") == "TASK_STATE_WORKING")


def artifacts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in events if event["kind"] == "artifactUpdate"]


def test_the_js_sdk_reads_the_cards_sends_streams_and_answers_an_interrupt(examples: LiveServer) -> None:
    report = drive(examples, "examples")

    cards = report["cards"]
    assert cards["default"] == "react_agent", "the default assistant is the first graph the config names"
    research = cards["research"]
    assert research["name"] == "research"
    assert research["interfaces"] == [
        {"url": f"{examples.url}/a2a/research", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    assert research["streaming"] is True
    assert research["skills"] == [{"id": "research", "inputModes": ["application/json"]}]
    assert "topic" in research["extensions"][0]["inputKeys"]
    assert cards["protocolVersion"] == "1.0", "the SDK speaks A2A 1.0 to it"

    blocking = report["blocking"]
    task = blocking["task"]
    assert task["state"] == "TASK_STATE_COMPLETED", f"SendMessage answers the settled task, got {task['state']}"
    assert task["contextId"], "a message with no context starts a thread of its own"
    (output,) = task["artifacts"]
    assert output["parts"][-1]["kind"] == "data"
    assert output["parts"][-1]["value"]["report"] == REPORT
    assert task["historyRoles"][0] == "user"
    assert "agent" in task["historyRoles"], "the model's notes are its history"
    assert blocking["got"]["id"] == task["id"]
    assert blocking["got"]["state"] == "TASK_STATE_COMPLETED"
    assert blocking["got"]["artifacts"] == task["artifacts"], "GetTask answers the same output"

    streamed = report["streamed"]
    assert streamed[0]["kind"] == "task", "a stream starts with the task"
    assert distinct(states(streamed)) == ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]
    steps = [event["step"] for event in streamed if event["kind"] == "statusUpdate" and event["step"]]
    assert "research_step:search" in steps, f"a subgraph's node is parent:node; steps: {steps}"
    custom = [value for event in streamed if event["kind"] == "statusUpdate" for value in event["custom"]]
    assert custom == [{"searching": "clouds"}, {"searching": "rain"}], "the graph's custom writes are data parts"
    assert text(streamed).endswith(REPORT), "the model's chunks are text parts, the report written last"
    (artifact,) = artifacts(streamed)
    assert artifact["artifactId"] == "output"
    assert artifact["parts"][-1]["value"]["report"] == REPORT
    seqs = [int(event["seq"]) for event in streamed]
    assert seqs == sorted(seqs), "in the run's order"
    assert streamed[-1]["kind"] == "statusUpdate", "the final state comes after the artifact"

    interrupt = report["interrupt"]
    paused = interrupt["paused"]
    assert distinct(states(paused)) == ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]
    asked = paused[-1]
    assert asked["data"] == [REFUND_APPROVAL]
    assert asked["messageMetadata"]["action"] == "issue_refund"
    assert asked["text"] == REFUND_APPROVAL["summary"], "the status message says what waits for approval"
    assert text(paused) == "Let me look up order A-1001.I will ask for the refund of order A-1001."
    assert interrupt["waiting"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    resumed = interrupt["resumed"]
    assert resumed[0]["kind"] == "task"
    assert resumed[0]["id"] == asked["taskId"], "the answer continues the same task"
    assert distinct(states(resumed))[-2:] == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]
    assert text(resumed) == REFUNDED
    (answer,) = artifacts(resumed)
    assert answer["parts"][0] == {"kind": "text", "value": REFUNDED, "metadata": {}}
    assert interrupt["finished"]["state"] == "TASK_STATE_COMPLETED"
    assert interrupt["endedTaskAnswered"]["kind"] == "UnsupportedOperationError", interrupt["endedTaskAnswered"]
    assert interrupt["unknownTask"]["kind"] == "TaskNotFoundError", interrupt["unknownTask"]


def test_the_js_sdk_cancels_a_working_task(gated: LiveServer, tmp_path: Path) -> None:
    gate = str(tmp_path / "never")
    report = drive(gated, "cancel", gate)

    started = report["started"]
    assert started[0]["kind"] == "task"
    assert started[-1]["custom"] == [{"holding": gate}], "the stream was left while the run holds"
    assert report["cancelled"]["id"] == started[0]["id"]
    assert report["cancelled"]["state"] == "TASK_STATE_CANCELED", f"CancelTask answered {report['cancelled']}"
    assert report["got"]["state"] == "TASK_STATE_CANCELED"
    assert report["again"]["kind"] == "TaskNotCancelableError", report["again"]
