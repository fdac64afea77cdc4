"""``harness eval --config langgraph.json --graph ID``: an example graph driven in-process, its trajectory,
tool calls and interrupts read from LangGraph's streams; epochs, intervals, JUnit, event logs, --resume."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import msgspec
import pytest

from agent.evaluation.report import load_report
from contracts import Envelope
from tests.agent.evaluation.conftest import SMALL_DATASET, write_dataset
from tests.agent.evaluation.test_cli import harness_eval

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "examples" / "langgraph.json"
REACT_DATASET = ROOT / "examples" / "react_agent" / "eval.yaml"


@pytest.fixture(autouse=True)
def scripted_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples' own deterministic model (``HARNESS_CHAT_MODEL`` unset is ``fake``)."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)


def eval_react(out: Path, *extra: str, dataset: Path = REACT_DATASET) -> int:
    return harness_eval(
        "--config", str(CONFIG), "--graph", "react_agent", "--dataset", str(dataset), "--out", str(out), *extra
    )


def test_the_react_example_passes_every_case_and_epoch(eval_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = eval_env / "out"

    assert eval_react(out, "--epochs", "2") == 0

    captured = capsys.readouterr()
    assert "eval: react_agent on eval (4 cases × 2 epochs)" in captured.out
    assert captured.err.count("(epoch ") == 8, "not a terminal: one plain progress line per case and epoch"
    assert "ETA" in captured.err
    report = load_report(out / "report.json")
    assert (report.run.graph, report.run.epochs, report.run.config) == ("react_agent", 2, str(CONFIG))
    assert [(c.id, c.passed, c.epochs_passed, c.epochs) for c in report.cases] == [
        ("lookup-order", True, 2, 2),
        ("refund-approved", True, 2, 2),
        ("refund-rejected", True, 2, 2),
        ("no-order-id", True, 2, 2),
    ]
    for metric in ("case_pass_rate", "pass_at_k", "pass_hat_k", "trajectory", "tools", "interrupts", "state"):
        assert report.metrics[metric].value == 1.0
        assert report.metrics[metric].ci95 == (1.0, 1.0)
    assert report.metrics["tokens"].value is not None
    assert report.metrics["tokens"].value > 0

    approved = next(r for r in report.runs[0].records if r.id == "refund-approved" and r.epoch == 1)
    assert approved.node_names(nested=False) == ["agent", "tools", "agent", "tools", "agent"], "tools resumed: once"
    marked = approved.node_names(nested=False, marked=True)
    assert marked == ["agent", "tools", "agent", "tools", "__interrupt__", "agent"], "the pause, where it stopped"
    assert [(t.name, t.args["order_id"]) for t in approved.tool_calls] == [
        ("lookup_order", "A-1001"),
        ("issue_refund", "A-1001"),
    ]
    assert approved.interrupts[0]["action"] == "issue_refund"
    assert [step.outcome for step in approved.trajectory][3:5] == ["ok", "interrupted"], "the pause is its own step"
    rejected = next(r for r in report.runs[0].records if r.id == "refund-rejected")
    assert rejected.state["messages"][-1]["content"].endswith("was rejected: not eligible yet")

    events = (out / approved.events).read_bytes().splitlines() if approved.events else []
    decoded = [msgspec.json.decode(line, type=Envelope) for line in events]
    assert type(decoded[0]).__name__ == "GraphTopologyEvent"
    assert type(decoded[-1]).__name__ == "RunCompletedEvent"
    assert "NodeCompletedEvent" in {type(e).__name__ for e in decoded}
    assert [e.seq for e in decoded] == list(range(1, len(decoded) + 1))
    assert {e.run_id for e in decoded} == {"eval-refund-approved-1"}

    suites = ET.parse(out / "junit.xml").getroot()
    assert (suites.get("tests"), suites.get("failures"), suites.get("errors")) == ("4", "0", "0")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert 'href="events/refund-approved.1.jsonl"' in page
    assert '<span class="interrupted"' in page
    assert "Rates of stub with their 95% intervals" in page


def test_a_missed_expectation_fails_its_case_with_the_miss_in_words(eval_env: Path) -> None:
    dataset = eval_env / "wrong.jsonl"
    cases = [
        {
            "id": "wrong-path",
            "messages": "What is the status of order A-1002?",
            "expect": {"trajectory": {"nodes": ["agent"], "match": "strict"}, "tools": []},
        },
        {"id": "unanswered", "messages": "Please refund order A-1001."},
    ]
    dataset.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    out = eval_env / "out"

    assert eval_react(out, dataset=dataset) == 0

    report = load_report(out / "report.json")
    wrong, unanswered = report.cases
    assert not wrong.passed
    assert wrong.failures == [
        "trajectory: strict match failed: expected agent, ran agent → tools → agent",
        "tools: expected no tool call, got lookup_order",
    ]
    assert not unanswered.passed
    assert unanswered.failures == [
        "the run paused at an interrupt no `resume` answers (expect `interrupts` to allow it)"
    ]
    assert report.metrics["case_pass_rate"].value == 0.0
    failure = ET.parse(out / "junit.xml").getroot().find("testsuite/testcase[@name='wrong-path']/failure")
    assert failure is not None
    assert failure.get("message") == "1 of 1 epoch(s) failed"
    assert "strict match failed" in (failure.text or "")
    assert "### Failing cases (2)" in (out / "report.md").read_text(encoding="utf-8")


def test_resume_runs_only_what_an_interrupted_eval_left(eval_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = eval_env / "out"
    assert eval_react(out, "--epochs", "2") == 0
    first = load_report(out / "report.json")
    capsys.readouterr()
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines()
    assert len(lines) == 1 + 8  # the header, then a line per case and epoch
    results.write_bytes(b"\n".join(lines[:4]) + b"\n" + lines[4][:40])  # 3 done, the 4th cut mid-line

    assert eval_react(out, "--epochs", "2", "--resume") == 0

    err = capsys.readouterr().err
    assert "resuming: 3 already done" in err
    assert err.count("(epoch ") == 5
    resumed = load_report(out / "report.json")
    assert [(c.id, c.epochs_passed) for c in resumed.cases] == [(c.id, c.epochs_passed) for c in first.cases]
    assert len(resumed.runs[0].records) == 8

    assert eval_react(out, "--epochs", "3", "--resume") == 2
    assert "cannot be resumed as this one" in capsys.readouterr().err


def test_a_graph_needs_its_config_and_its_own_dataset(eval_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_eval("--graph", "react_agent", "--out", str(eval_env / "o")) == 2
    assert "--graph react_agent needs --config" in capsys.readouterr().err
    assert harness_eval("--config", str(CONFIG), "--graph", "react_agent", "--out", str(eval_env / "o")) == 2
    assert "needs its own --dataset" in capsys.readouterr().err
    assert eval_react(eval_env / "o", dataset=REACT_DATASET) == 0
    assert harness_eval("--config", str(CONFIG), "--graph", "nope", "--dataset", str(REACT_DATASET)) == 2
    assert "has no graph 'nope' (it has: react_agent, research)" in capsys.readouterr().err


def test_the_support_agent_with_epochs(eval_env: Path) -> None:
    dataset = write_dataset(eval_env / "small.jsonl", SMALL_DATASET)
    out = eval_env / "out"

    assert harness_eval("--dataset", str(dataset), "--out", str(out), "--epochs", "2") == 0

    report = load_report(out / "report.json")
    assert report.run.graph == "support"
    assert report.run.epochs == 2
    assert len(report.runs[0].cases) == 2 * len(SMALL_DATASET)
    assert [c.epochs for c in report.cases] == [2] * len(SMALL_DATASET)
    assert report.metrics["outcome_accuracy"].value == report.runs[0].metrics.outcome_accuracy.value
    assert report.metrics["case_pass_rate"].n == len(SMALL_DATASET)
    assert all(len(values) == 2 for case in report.cases for values in case.scores.values())

    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines()
    results.write_bytes(b"\n".join(lines[:3]) + b"\n")
    assert harness_eval("--dataset", str(dataset), "--out", str(out), "--epochs", "2", "--resume") == 0
    resumed = load_report(out / "report.json")
    assert [(c.id, c.epochs_passed) for c in resumed.cases] == [(c.id, c.epochs_passed) for c in report.cases]
    assert len(results.read_bytes().splitlines()) == len(lines)


def test_a_subgraph_s_nodes_are_in_the_trajectory_by_their_path(eval_env: Path) -> None:
    out = eval_env / "out"

    code = harness_eval(
        "--config",
        str(CONFIG),
        "--graph",
        "research",
        "--dataset",
        str(ROOT / "examples" / "research_graph" / "eval.yaml"),
        "--out",
        str(out),
    )

    assert code == 0
    report = load_report(out / "report.json")
    assert [(c.id, c.passed) for c in report.cases] == [("clouds-and-rain", True), ("unknown-topic", True)]
    nested = report.runs[0].records[0]
    assert nested.node_names(nested=False) == [
        "planner",
        "research_step",
        "planner",
        "research_step",
        "planner",
        "write_report",
    ]
    assert [s.depth for s in nested.trajectory if s.node.startswith("research_step:")] == [1, 1, 1, 1]


def test_later_turns_run_on_the_same_thread(eval_env: Path) -> None:
    dataset = eval_env / "turns.jsonl"
    case = {
        "id": "two-orders",
        "messages": "What is the status of order A-1002?",
        "then": ["And order A-1003?"],
        "expect": {
            "tools": [{"name": "lookup_order", "args": {"order_id": "A-1002"}}, {"name": "lookup_order"}],
            "state_contains": {"messages.-1.content": "processing"},
            "state_schema": {"messages": {"type": "array", "minItems": 6}},
        },
    }
    dataset.write_text(json.dumps(case) + "\n", encoding="utf-8")

    assert eval_react(eval_env / "out", dataset=dataset) == 0

    report = load_report(eval_env / "out" / "report.json")
    [record] = report.runs[0].records
    assert record.passed, record.failures
    assert [call.args["order_id"] for call in record.tool_calls] == ["A-1002", "A-1003"]
    assert record.node_names(nested=False) == ["agent", "tools", "agent", "agent", "tools", "agent"]
