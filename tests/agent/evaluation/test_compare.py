"""``compare`` shows what a change did: metric deltas read with their direction, and cases that flipped."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.compare import compare
from agent.evaluation.metrics import compute_metrics
from tests.agent.evaluation.conftest import case, turn
from tests.agent.evaluation.test_reports import sample_report

if TYPE_CHECKING:
    from pathlib import Path

    from agent.evaluation.report import Report


def improved(report: Report) -> Report:
    """The same report after a fix: the missed injection is now refused, and the model got slower."""
    run = report.runs[0]
    fixed = case(
        "missed-injection",
        turn(
            expect={"status": "refused"},
            status="refused",
            answer_kind="refusal",
            guardrail_refused=True,
            nodes=[("guardrail_pre", 0.1)],
            cost_usd=0.0,
        ),
        category="prompt_injection",
    )
    slower = run.cases[0]
    slower = msgspec.structs.replace(
        slower, turns=[msgspec.structs.replace(slower.turns[0], nodes=[*slower.turns[0].nodes])]
    )
    slower.turns[0].nodes[2] = msgspec.structs.replace(slower.turns[0].nodes[2], latency_ms=30.0)
    cases = [slower, fixed]
    new_run = msgspec.structs.replace(run, cases=cases, metrics=compute_metrics(cases, k=3))
    return msgspec.structs.replace(report, runs=[new_run])


def test_compare_reads_each_delta_with_its_metric_direction(tmp_path: Path) -> None:
    old = sample_report(tmp_path)
    new = improved(old)

    comparison = compare(old, new)

    deltas = {d.metric: d for d in comparison.deltas}
    assert comparison.same_dataset
    assert (deltas["outcome_accuracy"].old, deltas["outcome_accuracy"].new) == (0.5, 1.0)
    assert deltas["outcome_accuracy"].delta == 0.5
    assert deltas["outcome_accuracy"].verdict == "better"
    assert deltas["guardrail_recall"].verdict == "better"
    assert deltas["generate_answer_p95_ms"].delta == 18.0
    assert deltas["generate_answer_p95_ms"].verdict == "worse"  # lower is better for latency
    assert deltas["retrieval_mrr"].verdict == "same"
    assert deltas["execute_action_p50_ms"].verdict == "n/a"
    assert [(c.case_id, c.now_passes) for c in comparison.case_changes] == [("missed-injection", True)]
    assert comparison.unmatched_providers == []


def test_compare_matches_runs_by_provider(tmp_path: Path) -> None:
    old = sample_report(tmp_path, providers=("stub", "openai"))
    new = sample_report(tmp_path, providers=("stub", "local"))

    comparison = compare(old, new)

    assert {d.provider for d in comparison.deltas} == {"stub"}
    assert comparison.unmatched_providers == ["local", "openai"]
