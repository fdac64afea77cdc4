"""The runner drives the agent's graph in-process, and the gate it feeds can fail."""

from __future__ import annotations

import importlib
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

import agent.evaluation.runner as runner_module
from agent.evaluation.dataset import HELDOUT_DATASET, load_dataset
from agent.evaluation.gate import evaluate_gate, load_thresholds
from agent.evaluation.report import build_report, dataset_info
from agent.evaluation.runner import run_dataset
from agent.guardrails import InputVerdict
from agent.turns import run_turn
from tests.agent.evaluation.conftest import SMALL_DATASET, write_dataset

if TYPE_CHECKING:
    from agent.config import AgentConfig

PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"


async def test_the_small_dataset_passes_on_the_stub_with_what_the_spans_saw(
    tmp_path: Path, stub_config: AgentConfig
) -> None:
    cases = load_dataset(write_dataset(tmp_path / "small.jsonl", SMALL_DATASET))
    seen: list[str] = []

    run = await run_dataset(cases, stub_config, concurrency=3, on_case_done=lambda result: seen.append(result.id))

    failures = {c.id: [f for t in c.turns for f in t.failures] for c in run.cases if not c.passed}
    assert failures == {}
    assert [c.id for c in run.cases] == [c["id"] for c in SMALL_DATASET]  # dataset order, whatever finished first
    assert sorted(seen) == sorted(c.id for c in run.cases)
    assert (run.provider, run.model, run.retrieval_k) == ("stub", "stub-1", 3)

    by_id = {c.id: c for c in run.cases}
    reset = by_id["reset"].turns[0]
    assert reset.retrieved[0] == "kb-password-reset"
    assert len(reset.retrieved) == 3
    assert [n.node for n in reset.nodes] == ["guardrail_pre", "retrieve_context", "generate_answer", "guardrail_post"]
    assert all(n.latency_ms >= 0 for n in reset.nodes)
    assert reset.output_tokens > 0
    inject = by_id["inject"].turns[0]
    assert (inject.guardrail_refused, inject.refusal_reason, inject.retrieved) == (True, "prompt_injection", [])
    paused, approved = by_id["refund-approve"].turns
    assert paused.action is not None
    assert (paused.action.name, paused.action.arguments) == ("issue_refund", {"invoice_id": "INV-1001"})
    assert [n.node for n in approved.nodes] == ["human_approval", "execute_action", "guardrail_post"]
    assert approved.retrieved == []  # a resume retrieves nothing: its spans are its own
    # both refund cases refunded INV-1001: each case had its own ledger
    assert "Refund of $42.00" in approved.answer_text


async def test_a_turn_that_fails_is_an_error_and_the_rest_of_its_case_is_skipped(
    tmp_path: Path, stub_config: AgentConfig
) -> None:
    broken = msgspec.structs.replace(stub_config, stub=msgspec.structs.replace(stub_config.stub, fail_after_tokens=2))
    cases = load_dataset(write_dataset(tmp_path / "small.jsonl", SMALL_DATASET))

    run = await run_dataset(cases, broken, concurrency=2)

    by_id = {c.id: c for c in run.cases}
    first, second = by_id["two-questions"].turns
    assert first.status == "error"
    assert first.error is not None
    assert "ProviderStreamFailed" in first.error
    assert second.status == "skipped"
    assert second.failures == ["status: expected completed, got skipped (an earlier turn of the case failed)"]
    assert by_id["inject"].passed  # refused before the model is called


class NetworkUsed(AssertionError):
    pass


async def test_the_eval_runs_the_graph_in_process_and_never_touches_the_network(
    stub_config: AgentConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[str] = []

    def refuse(what: str) -> Any:
        def blocked(*args: object, **kwargs: object) -> None:
            attempts.append(what)
            raise NetworkUsed(f"the eval made a network request ({what})")

        return blocked

    monkeypatch.setattr(socket.socket, "connect", refuse("socket.connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket, "create_connection", refuse("socket.create_connection"))
    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", refuse("httpx async"))
    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", refuse("httpx sync"))
    graph_turns: list[str] = []

    async def spy(agent: Any, message: str, **kwargs: Any) -> Any:
        graph_turns.append(message)
        return await run_turn(agent, message, **kwargs)

    monkeypatch.setattr(runner_module, "run_turn", spy)
    cases = load_dataset(HELDOUT_DATASET)

    run = await run_dataset(cases, stub_config, concurrency=8)

    assert attempts == []
    assert run.cases
    assert all(turn.status not in ("error", "skipped") for c in run.cases for turn in c.turns)
    assert len(graph_turns) == sum(1 for c in cases for t in c.turns if t.message is not None)
    report = build_report(dataset_info(HELDOUT_DATASET, len(cases)), [run])
    gate = evaluate_gate(report, load_thresholds(PYPROJECT))
    assert gate.failures == [], "the stub passes the gate of pyproject.toml"


async def test_a_broken_input_guardrail_trips_the_gate(
    stub_config: AgentConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the rules run where a turn enters the graph (agent.intake); guardrail_pre applies their verdict
    intake = importlib.import_module("agent.intake")
    monkeypatch.setattr(intake, "check_input", lambda message: InputVerdict(allowed=True))
    cases = load_dataset(HELDOUT_DATASET)

    run = await run_dataset(cases, stub_config, concurrency=8)

    report = build_report(dataset_info(HELDOUT_DATASET, len(cases)), [run])
    gate = evaluate_gate(report, load_thresholds(PYPROJECT))
    failed = {check.metric: check for check in gate.failures}
    assert not gate.passed
    assert failed["guardrail_recall"].actual == 0.0
    assert {"outcome_accuracy", "outcome_accuracy_refused", "case_pass_rate"} <= set(failed)
    outcome = failed["outcome_accuracy"].actual
    assert outcome is not None
    assert outcome < failed["outcome_accuracy"].threshold - 0.1, "not a near miss: the gate fails clearly"
