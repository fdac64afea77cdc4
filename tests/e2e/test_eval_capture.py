"""``harness eval capture`` on a real run: the ReAct example served by a real uvicorn (identity on) pauses at its
refund's approval and is resumed; the command, run as its own process on the same data directory, writes the run as
a case (its resume decision read from the thread's checkpoints), and ``harness eval`` passes it. Another subject's
run and an unknown run are refused with exit 2. The embedded stores only: the source opens whichever stores the
``HARNESS_*`` settings name, the way ``harness purge`` does, so the shared ones are read by the same code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from agent.evaluation.report import load_report
from tests.e2e.agent_protocol.turns import EXAMPLES
from tests.e2e.test_identity import ALICE, BOB, bearer, with_identity
from tests.support.graph_projects import isolated_loading

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

ROOT = Path(__file__).resolve().parents[2]
REFUND = {"messages": [{"role": "user", "content": "Please refund order A-1001, card 4111 1111 1111 1111."}]}
APPROVE = {"decision": "approve"}


@pytest.fixture
def stores() -> None:
    """The embedded stores only (the conftest's runs each test on the shared ones too)."""


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The examples imported afresh, with their scripted fake chat model."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES)


@pytest.fixture
def service(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    return serve(msgspec.structs.replace(with_identity(settings, tmp_path), graphs_config=EXAMPLES / "langgraph.json"))


def harness(settings: Settings, *argv: str) -> subprocess.CompletedProcess[str]:
    """``harness ARGV`` as its own process, on the service's data directory and nothing else of this one's."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("HARNESS_")}
    env["HARNESS_DATA_DIR"] = str(settings.agent.data_dir)
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *argv],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def approved_refund(client: httpx.Client) -> str:
    """Alice's ReAct agent asked for a refund, paused at its approval, approved, finished: its run id."""
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    paused = client.post(f"/threads/{thread_id}/runs/wait", json={"assistant_id": "react_agent", "input": REFUND})
    assert paused.status_code == 200, paused.text
    [run] = client.get(f"/threads/{thread_id}/runs").json()
    assert run["status"] == "interrupted", run
    resumed = client.post(
        f"/threads/{thread_id}/runs/wait", json={"assistant_id": "react_agent", "command": {"resume": APPROVE}}
    )
    assert resumed.status_code == 200, resumed.text
    finished: dict[str, Any] = client.get(f"/runs/{run['run_id']}").json()
    assert finished["status"] == "completed", finished
    run_id: str = run["run_id"]
    return run_id


def test_a_real_run_paused_and_resumed_is_captured_and_passes_its_eval(
    service: LiveServer, settings: Settings, tmp_path: Path
) -> None:
    with httpx.Client(base_url=service.url, headers=bearer(ALICE), timeout=30) as client:
        run_id = approved_refund(client)
    dataset = tmp_path / "captured.jsonl"

    captured = harness(settings, "eval", "capture", run_id, "--dataset", str(dataset), "--subject", "alice")

    assert captured.returncode == 0, captured.stderr
    [case] = [msgspec.json.decode(line) for line in dataset.read_bytes().splitlines()]
    assert case["id"] == f"captured-{run_id.lower()}"
    assert case["resume"] == [APPROVE], "the decision, read from the thread's checkpoints"
    assert "4111" not in dataset.read_text(), "redacted"
    expect = case["expect"]
    assert expect["trajectory"] == {"nodes": ["agent", "tools", "agent", "tools", "agent"], "match": "strict"}
    assert [call["name"] for call in expect["tools"]] == ["lookup_order", "issue_refund"]
    assert [interrupt["action"] for interrupt in expect["interrupts"]] == ["issue_refund"]
    assert expect["state"] == {"messages.-1.type": "ai", "messages.-1.content": "Refunded 42.00 EUR for order A-1001."}

    out = tmp_path / "eval"
    config = str(EXAMPLES / "langgraph.json")
    evaluated = harness(
        settings, "eval", "--config", config, "--graph", "react_agent", "--dataset", str(dataset), "--out", str(out)
    )

    assert evaluated.returncode == 0, evaluated.stderr
    report = load_report(out / "report.json")
    assert [(c.id, c.passed) for c in report.cases] == [(case["id"], True)], evaluated.stdout

    for argv, said in (
        ((run_id, "--subject", "bob"), f"run {run_id} was started by another subject than bob"),
        (("r_unknown",), "run r_unknown is not in the run store"),
    ):
        refused = harness(settings, "eval", "capture", *argv, "--dataset", str(dataset))
        assert (refused.returncode, said in refused.stderr) == (2, True), refused.stderr
    assert len(dataset.read_bytes().splitlines()) == 1, "a refusal writes nothing"


def test_the_route_gives_the_case_the_command_writes_and_refuses_what_it_refuses(
    service: LiveServer, settings: Settings, tmp_path: Path
) -> None:
    with httpx.Client(base_url=service.url, headers=bearer(ALICE), timeout=30) as client:
        run_id = approved_refund(client)
        served = client.get(f"/runs/{run_id}/case")
        thread_id = client.post("/threads", json={}).json()["thread_id"]
        paused = client.post(f"/threads/{thread_id}/runs/wait", json={"assistant_id": "react_agent", "input": REFUND})
        assert paused.status_code == 200, paused.text
        [waiting] = client.get(f"/threads/{thread_id}/runs").json()
        not_finished = client.get(f"/runs/{waiting['run_id']}/case")
        chat = client.post("/chat", json={"message": "How do I reset my password?"}).json()
        chat_turn = client.get(f"/runs/{chat['run_id']}/case")
        unknown = client.get("/runs/r_0123456789abcdef/case")
    with httpx.Client(base_url=service.url, headers=bearer(BOB), timeout=30) as client:
        of_another = client.get(f"/runs/{run_id}/case")
    dataset = tmp_path / "captured.jsonl"
    captured = harness(settings, "eval", "capture", run_id, "--dataset", str(dataset), "--subject", "alice")
    assert captured.returncode == 0, captured.stderr

    assert served.status_code == 200, served.text
    assert served.json() == msgspec.json.decode(dataset.read_bytes().splitlines()[0]), "the command's case"
    assert "4111" not in served.text, "redacted"
    for answer, status, code in (
        (not_finished, 409, "run_not_finished"),
        (chat_turn, 409, "run_not_capturable"),
        (unknown, 404, "run_not_found"),
        (of_another, 404, "run_not_found"),
    ):
        assert (answer.status_code, answer.json()["code"]) == (status, code), answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")
    assert "support agent's /chat" in chat_turn.json()["detail"]
