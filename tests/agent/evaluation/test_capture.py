"""``harness eval capture``: a finished run of a registered graph becomes a case of the graph dataset format,
redacted; an unknown run, a run still running and another subject's run are refused."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from agent.evaluation.capture import CapturedRun, capture_case
from agent.evaluation.dataset import load_graph_dataset
from api.cli import main

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path


def envelope(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "v": 1, "run_id": "r_0001", "seq": 0, "status": "running", "data": data}


def started(node: str) -> dict[str, Any]:
    return envelope("node_started", {"node": node, "step": 1})


def completed(node: str) -> dict[str, Any]:
    return envelope("node_completed", {"node": node, "step": 1, "latency_ms": 1.0, "outcome": "ok", "summary": ""})


def ai(content: str, *calls: dict[str, Any]) -> dict[str, Any]:
    return {"type": "ai", "content": content, "tool_calls": list(calls)}


REFUND_CALL = {"name": "issue_refund", "args": {"order_id": "A-1001", "card": "4111 1111 1111 1111"}}
PAUSED = {
    "approval": {"approval_id": "i1", "action": "issue_refund", "summary": "Refund"},
    "interrupts": [{"id": "i1", "value": {"action": "issue_refund", "args": {"order_id": "A-1001"}}}],
}
FIRST_VALUES = {"mode": "values", "ns": [], "data": {"messages": [{"type": "human", "content": "Refund A-1001"}]}}
ANSWER = {"messages": [{"type": "ai", "content": "Refunded 42.00 EUR for order A-1001."}]}
REFUND_RUN = [
    envelope("graph_topology", {"nodes": [], "edges": []}),
    envelope("graph_part", FIRST_VALUES),
    started("agent"),
    envelope("graph_part", {"mode": "updates", "ns": [], "data": {"agent": {"messages": [ai("", REFUND_CALL)]}}}),
    completed("agent"),
    started("tools"),
    envelope("paused", PAUSED),
    envelope("graph_topology", {"nodes": [], "edges": []}),
    started("tools"),
    completed("tools"),
    started("agent"),
    completed("agent"),
    envelope("run_completed", {"output": ANSWER}),
]


def refund_run(**fields: Any) -> CapturedRun:
    values: dict[str, Any] = {
        "run_id": "r_0001",
        "status": "completed",
        "owner": "alice",
        "graph_id": "react_agent",
        "envelopes": REFUND_RUN,
        "resumes": ["approve"],
    }
    return CapturedRun(**(values | fields))


def test_a_finished_run_becomes_a_redacted_case_of_what_it_did() -> None:
    case = capture_case(refund_run(), subject="alice")

    assert case["id"] == "captured-r_0001"
    assert case["messages"] == "Refund A-1001"
    assert case["resume"] == ["approve"]
    expect = case["expect"]
    assert expect["trajectory"] == {"nodes": ["agent", "tools", "agent"], "match": "strict"}  # tools paused once
    assert expect["tools"][0]["name"] == "issue_refund"
    assert "4111" not in msgspec.json.encode(case).decode()  # redacted
    assert expect["interrupts"] == [{"action": "issue_refund", "args": {"order_id": "A-1001"}}]
    assert expect["state"] == {"messages.-1.type": "ai", "messages.-1.content": "Refunded 42.00 EUR for order A-1001."}


def test_a_run_that_logged_values_alone_has_the_tool_calls_of_the_messages_it_added() -> None:
    """``/runs/wait`` logs ``values`` parts only: the tool calls are those of the AI messages the run added."""
    earlier = [{"type": "human", "content": "Hi", "id": "m0"}, {**ai("", {"name": "lookup_order"}), "id": "m1"}]
    asked = {"type": "human", "content": "Refund A-1001", "id": "m2"}
    added = [{**ai("", REFUND_CALL), "id": "m3"}, {**ANSWER["messages"][0], "id": "m4"}]

    def values(messages: list[dict[str, Any]]) -> dict[str, Any]:
        return envelope("graph_part", {"mode": "values", "ns": [], "data": {"messages": messages}})

    logged = [e for e in REFUND_RUN if e["type"] != "graph_part"]
    logged[1:1] = [values([*earlier, asked]), values([*earlier, asked, *added])]

    case = capture_case(refund_run(envelopes=logged))

    assert [call["name"] for call in case["expect"]["tools"]] == ["issue_refund"], "not the earlier turn's"
    assert case["input"]["messages"][-1]["content"] == "Refund A-1001"


@pytest.mark.parametrize(
    ("fields", "subject", "message"),
    [
        ({"status": "running"}, None, "r_0001 is running; capture a run once it has finished"),
        ({"status": "waiting"}, None, "r_0001 is waiting"),
        ({"owner": "mallory"}, "alice", "started by another subject than alice"),
        ({"graph_id": None}, None, "support agent's /chat"),
    ],
)
def test_a_run_that_cannot_be_captured_is_refused(fields: dict[str, Any], subject: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        capture_case(refund_run(**fields), subject=subject)


class MemorySource:
    def __init__(self, *runs: CapturedRun) -> None:
        self.runs = {run.run_id: run for run in runs}

    async def load_run(self, run_id: str) -> CapturedRun | None:
        return self.runs.get(run_id)


def harness(source: MemorySource, *argv: str, monkeypatch: pytest.MonkeyPatch) -> int:
    @asynccontextmanager
    async def opened() -> AsyncIterator[MemorySource]:
        yield source

    from agent.evaluation import capture

    original = capture.run_capture_command

    def with_source(args: Any) -> int:
        args.open_run_source = opened
        return original(args)

    monkeypatch.setattr("agent.evaluation.cli.run_capture_command", with_source)
    return main(["eval", "capture", *argv])


def test_capture_appends_to_the_dataset_and_refuses_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = MemorySource(
        refund_run(), refund_run(run_id="r_0002", owner="bob"), refund_run(run_id="r_0003", status="running")
    )
    dataset = tmp_path / "captured.jsonl"

    assert harness(source, "r_0001", "--dataset", str(dataset), "--subject", "alice", monkeypatch=monkeypatch) == 0
    assert [case.id for case in load_graph_dataset(dataset)] == ["captured-r_0001"]

    for run_id, said in (
        ("r_0009", "run r_0009 is not in the run store"),
        ("r_0003", "run r_0003 is running"),
        ("r_0002", "started by another subject than alice"),
    ):
        assert harness(source, run_id, "--dataset", str(dataset), "--subject", "alice", monkeypatch=monkeypatch) == 2
        assert said in capsys.readouterr().err
    assert harness(source, "r_0002", "--dataset", str(dataset), monkeypatch=monkeypatch) == 0
    assert [case.id for case in load_graph_dataset(dataset)] == ["captured-r_0001", "captured-r_0002"]
    assert harness(source, "r_0002", "--dataset", str(dataset), monkeypatch=monkeypatch) == 2
    assert "has a case 'captured-r_0002' already" in capsys.readouterr().err
