"""Replaying a recorded run in the SPA (issue 27): the event logs ``harness eval`` writes for an example graph's
cases (``events/<case>.<epoch>.jsonl``), chosen under "Replay a recorded run", are drawn as the run went, through
the same reducer and graph as a live stream, without asking the service anything.

The logs are made here, by running the react_agent example's eval (the stub, the examples' scripted model).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.test_browser import PIPELINE, TIMEOUT_MS, answer_text, open_app, snapshots, wait_status

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def eval_events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event logs of ``harness eval --config examples/langgraph.json --graph react_agent``."""
    out = tmp_path_factory.mktemp("react-eval")
    env = {key: value for key, value in os.environ.items() if not key.startswith("HARNESS_")}
    env.update(HARNESS_LLM_PROVIDER="stub", HARNESS_DATA_DIR=str(out / "data"), HARNESS_STUB_TOKEN_DELAY_MS="0")
    command = [
        *(sys.executable, "-m", "api.cli", "eval"),
        *("--config", "examples/langgraph.json", "--graph", "react_agent"),
        *("--dataset", "examples/react_agent/eval.yaml", "--out", str(out / "report")),
    ]
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return out / "report" / "events"


SUPPORT_CASES = [
    {
        "id": "reset-password",
        "category": "answerable",
        "messages": "How do I reset my password?",
        "expect": {"turns": [{"status": "completed", "answer_kind": "answer"}]},
    },
    {
        "id": "refund-approved",
        "category": "action",
        "messages": "Please refund invoice INV-1001.",
        "resume": [{"decision": "approve"}],
        "expect": {"turns": [{"status": "paused"}, {"status": "completed"}]},
    },
]


@pytest.fixture(scope="session")
def support_events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event logs of ``harness eval`` on the support agent (the default graph), two cases of its own."""
    out = tmp_path_factory.mktemp("support-eval")
    dataset = out / "cases.jsonl"
    dataset.write_text("".join(json.dumps(case) + "\n" for case in SUPPORT_CASES), encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith("HARNESS_")}
    # tokens 15 ms apart, as a model sends them: the replay at the recorded pace draws each
    env.update(HARNESS_LLM_PROVIDER="stub", HARNESS_DATA_DIR=str(out / "data"), HARNESS_STUB_TOKEN_DELAY_MS="15")
    command = [sys.executable, "-m", "api.cli", "eval", "--dataset", str(dataset), "--out", str(out / "report")]
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return out / "report" / "events"


def recorded(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def final_answer(envelopes: list[dict[str, Any]]) -> str:
    """The last AI message of the run's final state, as the log recorded it."""
    output = envelopes[-1]["data"]["output"]
    texts = [m["content"] for m in output["messages"] if m["type"] == "ai" and m["content"]]
    answer: str = texts[-1]
    return answer


def as_page_shows(ms: float) -> str:
    """A latency under a minute the way spa/format.js writes it."""
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 1000:
        return f"{math.floor(ms + 0.5)} ms"
    return f"{ms / 1000:.1f} s"


def replay(page: Page, log: Path, pace: str) -> None:
    page.select_option("[data-role=replay-speed]", pace)
    page.set_input_files("[data-role=replay-file]", str(log))


def node_states(page: Page) -> dict[str, str]:
    states: dict[str, str] = page.eval_on_selector_all(
        "[data-region=graph] [data-node]",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.node, n.dataset.state]))",
    )
    return states


def test_a_recorded_case_is_drawn_to_its_end_without_asking_the_service(
    page: Page, live_server: Server, eval_events: Path, shoot: Any
) -> None:
    log = eval_events / "lookup-order.1.jsonl"
    envelopes = recorded(log)
    assert envelopes[-1]["type"] == "run_completed"
    asked: list[str] = []
    open_app(page, live_server.url)
    page.on("request", lambda request: asked.append(request.url) if request.resource_type == "fetch" else None)

    replay(page, log, "0")

    wait_status(page, "completed")
    assert node_states(page) == {"agent": "completed", "tools": "completed"}
    assert answer_text(page) == final_answer(envelopes)
    assert "A-1002" in answer_text(page)
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "completed"
    assert page.get_attribute("[data-role=connection]", "data-state") == "replayed"
    turn = page.text_content("[data-turn='1'] .bubble.user") or ""
    assert "What is the status of order A-1002?" in turn
    activity = page.text_content("[data-region=activity]") or ""
    completions = [e["data"] for e in envelopes if e["type"] == "node_completed"]
    for completed in completions:
        assert f"{completed['node']}: {completed['summary']}" in activity
    tools = [c["latency_ms"] for c in completions if c["node"] == "tools"][-1]
    assert page.get_attribute('[data-node="tools"]', "aria-label") == f"tools: {as_page_shows(tools)} · ok"
    assert asked == [], "a recording is drawn from the file alone"
    assert page.evaluate("() => sessionStorage.getItem('harness.active')") is None, "nothing to pick up on reload"
    assert page.is_enabled("[data-role=send]")
    shoot("60-replay-lookup-order")


def test_a_case_with_an_interrupt_replays_at_its_recorded_pace(
    page: Page, live_server: Server, eval_events: Path, shoot: Any
) -> None:
    log = eval_events / "refund-approved.1.jsonl"
    envelopes = recorded(log)
    open_app(page, live_server.url)

    replay(page, log, "1")

    page.wait_for_selector("[data-role=connection][data-state=replaying]", timeout=TIMEOUT_MS)
    wait_status(page, "completed")
    assert node_states(page) == {"agent": "completed", "tools": "completed"}
    assert answer_text(page) == final_answer(envelopes)
    seen = snapshots(page)
    running = [s for s in seen if s["status"] == "running" and s["connection"] == "replaying"]
    assert any(s["nodes"].get("tools") == "running" for s in running), "drawn step by step, not all at once"
    statuses = [s["status"] for s in seen]
    assert statuses.index("running") < statuses.index("completed")
    assert set(statuses[statuses.index("completed") :]) == {"completed"}
    shoot("61-replay-refund-approved")


def test_a_support_agent_case_replays_its_answer_as_it_formed(
    page: Page, live_server: Server, support_events: Path, shoot: Any
) -> None:
    log = support_events / "refund-approved.1.jsonl"
    envelopes = recorded(log)
    tokens = [
        e
        for e in envelopes
        if e["type"] == "graph_part" and e["data"]["mode"] == "custom" and "delta" in e["data"]["data"]
    ]
    assert tokens, "the support agent's tokens are in its log"
    answer = envelopes[-1]["data"]["output"]["answer"]["text"]
    open_app(page, live_server.url)

    replay(page, log, "0")

    wait_status(page, "completed")
    states = node_states(page)
    for node in PIPELINE:
        assert states[node] == "completed", (node, states)
    assert answer_text(page) == answer, "the final state's answer, not the last text field of the state"
    assert "INV-1001" in answer_text(page)
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "completed"
    shoot("62-replay-support-refund")


def test_a_support_agent_answer_forms_token_by_token_in_a_replay(
    page: Page, live_server: Server, support_events: Path
) -> None:
    log = support_events / "reset-password.1.jsonl"
    envelopes = recorded(log)
    pieces = "".join(
        e["data"]["data"]["text"]
        for e in envelopes
        if e["type"] == "graph_part" and e["data"]["mode"] == "custom" and "delta" in e["data"]["data"]
    )
    open_app(page, live_server.url)

    replay(page, log, "1")

    wait_status(page, "completed")
    seen = [s["answer"] for s in snapshots(page) if s["status"] == "running"]
    assert any(0 < len(text) < len(pieces) and pieces.startswith(text) for text in seen), "drawn as it formed"
    assert answer_text(page) == envelopes[-1]["data"]["output"]["answer"]["text"]


def test_a_file_that_is_not_an_event_log_is_refused_in_words(page: Page, live_server: Server, tmp_path: Path) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"type": "graph_topology"}\n', encoding="utf-8")
    open_app(page, live_server.url)

    replay(page, bad, "0")

    note = page.locator("[data-role=replay-note]")
    note.filter(has_text="cannot be replayed").wait_for(timeout=TIMEOUT_MS)
    assert "Line 1 is not an event envelope" in (note.text_content() or "")
    assert page.get_attribute("[data-role=outcome]", "data-status") == "idle"
