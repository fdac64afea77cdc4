"""The support agent runs as the registered graph ``support`` through the graph runner, in-process: what each
turn did is read from the state at each stop, each case leaves its event log, and the gate it feeds can fail."""

from __future__ import annotations

import importlib
import re
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

import agent.evaluation.support_admission as admission_module
from agent.evaluation.dataset import HELDOUT_DATASET, load_dataset
from agent.evaluation.gate import evaluate_gate, load_thresholds
from agent.evaluation.graph_runner import case_thread_id
from agent.evaluation.report import build_report, dataset_info
from agent.evaluation.results import StubSampling
from agent.evaluation.runner import run_dataset
from agent.evaluation.support_cases import case_messages
from agent.guardrails import InputVerdict
from agent.intake import admit
from contracts import ID_PATTERN, Envelope
from tests.agent.evaluation.conftest import SMALL_DATASET, write_dataset

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.evaluation.results import EvalRun

PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"


async def test_the_small_dataset_passes_on_the_stub_with_what_the_state_says(
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
    assert (reset.well_formed, reset.output_tokens > 0) == (True, True)
    inject = by_id["inject"].turns[0]
    assert (inject.guardrail_refused, inject.refusal_reason, inject.retrieved) == (True, "prompt_injection", [])
    assert inject.well_formed is None, "refused before the model"
    paused, approved = by_id["refund-approve"].turns
    assert paused.action is not None
    assert (paused.action.name, paused.action.arguments) == ("issue_refund", {"invoice_id": "INV-1001"})
    assert (paused.sent, approved.sent) == ("Please refund invoice INV-1001.", "[approve]")
    assert [n.node for n in approved.nodes] == ["human_approval", "execute_action", "guardrail_post"]
    assert (approved.retrieved, approved.refusal_reason, approved.well_formed) == ([], None, None)  # its own nodes
    # both refund cases refunded INV-1001: each case had its own ledger
    assert "Refund of $42.00" in approved.answer_text
    rejected = by_id["refund-reject"].turns[1]
    assert "Duplicate" in rejected.answer_text, "the comment reached the graph through the admission"


async def test_each_case_leaves_its_event_log_of_every_send(tmp_path: Path, stub_config: AgentConfig) -> None:
    cases = load_dataset(write_dataset(tmp_path / "small.jsonl", SMALL_DATASET))

    run = await run_dataset(cases, stub_config, events_dir=tmp_path / "out" / "events")

    approve = next(c for c in run.cases if c.id == "refund-approve")
    assert approve.events == "events/refund-approve.1.jsonl"
    decoded = [
        msgspec.json.decode(line, type=Envelope)
        for line in (tmp_path / "out" / approve.events).read_bytes().splitlines()
    ]
    kinds = [type(e).__name__ for e in decoded]
    assert kinds[0] == "GraphTopologyEvent"
    assert kinds[-1] == "RunCompletedEvent"
    assert {e.run_id for e in decoded} == {"eval-refund-approve-1"}
    started = [e.data.node for e in decoded if type(e).__name__ == "NodeStartedEvent"]
    assert started == [
        "guardrail_pre",
        "retrieve_context",
        "generate_answer",
        "human_approval",
        "human_approval",
        "execute_action",
        "guardrail_post",
    ]
    assert all(c.events == f"events/{c.id}.1.jsonl" for c in run.cases)


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


async def test_the_sends_follow_the_turns_whatever_the_agent_does(tmp_path: Path, stub_config: AgentConfig) -> None:
    """A resume is sent only to a pause (else there is nothing to resume); a message is sent however the turn
    before it ended, as a person writing again would."""
    expect_pause = {"status": "paused", "action": {"name": "issue_refund", "arguments": {"invoice_id": "INV-1001"}}}
    dataset = [
        {
            "id": "no-pause",
            "category": "multi_turn",
            "messages": "How do I reset my password?",
            "resume": [{"decision": "approve"}],
            "expect": {"turns": [expect_pause, {"status": "completed"}]},
        },
        {
            "id": "unexpected-pause",
            "category": "multi_turn",
            "messages": "Please refund invoice INV-1001.",
            "then": ["How do I reset my password?"],
            "expect": {"turns": [{"status": "completed"}, {"status": "completed", "doc_ids": ["kb-password-reset"]}]},
        },
    ]
    cases = load_dataset(write_dataset(tmp_path / "turns.jsonl", dataset))

    run = await run_dataset(cases, stub_config)

    no_pause, unexpected = run.cases
    assert [t.status for t in no_pause.turns] == ["completed", "skipped"]
    assert no_pause.turns[1].error == "nothing to resume: the turn before ended completed"
    assert [t.status for t in unexpected.turns] == ["paused", "completed"]
    assert unexpected.turns[1].retrieved[0] == "kb-password-reset"
    assert unexpected.turns[0].failures == ["status: expected completed, got paused"]


def test_a_long_case_id_still_makes_a_valid_thread_id() -> None:
    short, long_one, other = (case_thread_id(case_id, 12) for case_id in ("reset", "a" * 80, "a" * 79 + "b"))

    assert short == "eval-reset-12"
    assert all(re.search(ID_PATTERN, thread) for thread in (short, long_one, other))
    assert long_one != other


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
    admitted: list[str] = []

    async def spy(deps: Any, graph_input: Any, *, resume: bool) -> Any:
        if not resume:
            admitted.append(graph_input["message"])
        return await admit(deps, graph_input, resume=resume)

    monkeypatch.setattr(admission_module, "admit", spy)
    cases = load_dataset(HELDOUT_DATASET)

    run = await run_dataset(cases, stub_config, concurrency=8)

    assert attempts == []
    assert run.cases
    assert all(turn.status not in ("error", "skipped") for c in run.cases for turn in c.turns)
    assert sorted(admitted) == sorted(m for c in cases for m in case_messages(c)), "every message was screened"
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


def sampled(config: AgentConfig, seed: int | None) -> AgentConfig:
    return msgspec.structs.replace(config, stub=msgspec.structs.replace(config.stub, temperature=1.0, seed=seed))


def answers(run: EvalRun) -> list[tuple[str, int, bool, list[list[str]], list[str]]]:
    """What the sampling can change, per case and epoch: everything but the timings."""
    return [(c.id, c.epoch, c.passed, [t.cited for t in c.turns], [t.answer_text for t in c.turns]) for c in run.cases]


async def test_a_sampling_stub_gives_each_case_and_epoch_its_own_draws_whatever_the_concurrency(
    tmp_path: Path, stub_config: AgentConfig
) -> None:
    cases = load_dataset(write_dataset(tmp_path / "small.jsonl", SMALL_DATASET))

    one_at_a_time = await run_dataset(cases, sampled(stub_config, 5), concurrency=1, epochs=4)
    all_at_once = await run_dataset(cases, sampled(stub_config, 5), concurrency=8, epochs=4)
    other_seed = await run_dataset(cases, sampled(stub_config, 6), concurrency=8, epochs=4)

    assert answers(one_at_a_time) == answers(all_at_once)
    assert one_at_a_time.sampling == StubSampling(temperature=1.0, seed=5)
    assert answers(other_seed) != answers(one_at_a_time)
    reset = [c.turns[0].cited for c in one_at_a_time.cases if c.id == "reset"]
    assert len({tuple(cited) for cited in reset}) > 1, f"the epochs drew alike: {reset}"
    refused = [c.turns[0].refusal_reason for c in other_seed.cases if c.id == "inject"]
    assert refused == ["prompt_injection"] * 4, "the guardrails decide before the model: no draw reaches them"


async def test_an_unseeded_sampling_eval_records_the_seed_that_reproduces_it(
    tmp_path: Path, stub_config: AgentConfig
) -> None:
    cases = load_dataset(write_dataset(tmp_path / "small.jsonl", SMALL_DATASET))

    first = await run_dataset(cases, sampled(stub_config, None), epochs=3)
    assert first.sampling is not None
    again = await run_dataset(cases, sampled(stub_config, first.sampling.seed), epochs=3)
    deterministic = await run_dataset(cases, stub_config)

    assert answers(again) == answers(first)
    report = build_report(dataset_info(tmp_path / "small.jsonl", len(cases)), [first], resamples=10)
    assert report.runs[0].sampling == first.sampling
    assert deterministic.sampling is None
