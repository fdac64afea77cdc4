"""``compare`` pairs cases by id and says, per metric, improved / regressed / no significant change."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.compare import CompareSettings, case_values, compare
from agent.evaluation.metrics import compute_metrics
from agent.evaluation.summary import support_summary
from tests.agent.evaluation.conftest import case, turn
from tests.agent.evaluation.test_reports import sample_report

if TYPE_CHECKING:
    from pathlib import Path

    from agent.evaluation.report import Report
    from agent.evaluation.results import CaseResult


def refusal_case(case_id: str, *, refused: bool, latency_ms: float = 0.1) -> CaseResult:
    """An attack the input guardrail should refuse: passes when it did."""
    return case(
        case_id,
        turn(
            expect={"status": "refused", "refusal_reason": "prompt_injection"},
            status="refused" if refused else "completed",
            answer_kind="refusal" if refused else "answer",
            guardrail_refused=refused,
            refusal_reason="prompt_injection" if refused else None,
            nodes=[("guardrail_pre", latency_ms)],
            cost_usd=0.0,
        ),
        category="prompt_injection",
    )


def with_cases(report: Report, cases: list[CaseResult]) -> Report:
    scores, estimates = support_summary(cases, k=3, resamples=50)
    run = msgspec.structs.replace(
        report.runs[0], cases=cases, metrics=compute_metrics(cases, k=3), case_scores=scores, estimates=estimates
    )
    return msgspec.structs.replace(report, runs=[run], cases=scores, metrics=estimates)


def test_a_case_gets_its_own_value_of_each_metric(tmp_path: Path) -> None:
    values = case_values(sample_report(tmp_path).runs[0])

    assert values["answered"]["case_pass_rate"] == 1.0
    assert values["answered"]["retrieval_mrr"] == 1.0
    assert "guardrail_recall" not in values["answered"], "nothing to refuse: the case does not measure recall"
    assert values["missed-injection"]["case_pass_rate"] == 0.0
    assert values["missed-injection"]["guardrail_recall"] == 0.0
    assert values["answered"]["input_tokens_per_case"] == 120.0
    assert "generate_answer_p95_ms" not in values["answered"], "a node's percentile within one case says nothing"


def test_many_flips_one_way_are_a_significant_regression_that_blocks(tmp_path: Path) -> None:
    base = sample_report(tmp_path)
    old = with_cases(base, [refusal_case(f"attack-{i}", refused=True) for i in range(40)])
    new = with_cases(base, [refusal_case(f"attack-{i}", refused=i >= 12) for i in range(40)])

    comparison = compare(old, new)

    recall = next(v for v in comparison.verdicts if v.metric == "guardrail_recall")
    assert recall.verdict == "regressed"
    assert recall.paired.test == "mcnemar_exact"
    assert (recall.paired.worse, recall.paired.better) == (12, 0)
    assert recall.paired.p_value == round(2 / 2**12, 6)
    assert recall.paired.effect == -0.3
    assert recall.paired.ci95 is not None
    low, high = recall.paired.ci95
    assert low < -0.3 < high < 0
    assert recall.blocking
    assert not comparison.passed
    assert [c.case_id for c in comparison.case_changes] == [f"attack-{i}" for i in range(12)]


def test_a_flip_or_two_is_no_significant_change(tmp_path: Path) -> None:
    base = sample_report(tmp_path)
    old = with_cases(base, [refusal_case(f"attack-{i}", refused=True) for i in range(40)])
    new = with_cases(base, [refusal_case(f"attack-{i}", refused=i not in (3, 17)) for i in range(40)])

    comparison = compare(old, new)

    recall = next(v for v in comparison.verdicts if v.metric == "guardrail_recall")
    assert recall.verdict == "no significant change"
    assert recall.paired.p_value == 0.5
    assert comparison.passed


def test_a_significant_regression_below_the_minimum_effect_does_not_block(tmp_path: Path) -> None:
    base = sample_report(tmp_path)
    old = with_cases(base, [refusal_case(f"attack-{i}", refused=True) for i in range(400)])
    new = with_cases(base, [refusal_case(f"attack-{i}", refused=i >= 8) for i in range(400)])

    strict = compare(old, new, CompareSettings(min_effect=0.03))
    lenient = compare(old, new, CompareSettings(min_effect=0.01))

    recall = next(v for v in strict.verdicts if v.metric == "guardrail_recall")
    assert (recall.verdict, recall.paired.effect) == ("regressed", -0.02)
    assert not recall.blocking
    assert strict.passed
    assert not lenient.passed


def test_an_improvement_never_blocks(tmp_path: Path) -> None:
    base = sample_report(tmp_path)
    old = with_cases(base, [refusal_case(f"attack-{i}", refused=i >= 20) for i in range(40)])
    new = with_cases(base, [refusal_case(f"attack-{i}", refused=True) for i in range(40)])

    comparison = compare(old, new)

    verdicts = {v.metric: v.verdict for v in comparison.verdicts}
    assert verdicts["guardrail_recall"] == verdicts["case_pass_rate"] == "improved"
    assert comparison.passed


def test_scores_get_the_permutation_test_and_units_block_only_when_configured(tmp_path: Path) -> None:
    base = sample_report(tmp_path)
    old = with_cases(base, [refusal_case(f"attack-{i}", refused=True, latency_ms=1.0 + i % 3) for i in range(30)])
    new = with_cases(base, [refusal_case(f"attack-{i}", refused=True, latency_ms=5.0 + i % 3) for i in range(30)])

    default = compare(old, new)
    configured = compare(old, new, CompareSettings(min_effect_by_metric={"turn_latency_p50_ms": 2.0}))

    latency = next(v for v in default.verdicts if v.metric == "turn_latency_p50_ms")
    assert latency.paired.test == "paired_permutation"
    assert latency.verdict == "regressed"
    assert latency.paired.effect == 4.0
    assert latency.paired.p_value is not None
    assert latency.paired.p_value < 0.001
    assert default.passed, "milliseconds depend on the machine: no minimum effect, no block"
    assert not configured.passed


def test_cases_are_paired_by_id_whatever_their_order(tmp_path: Path) -> None:
    base = sample_report(tmp_path)
    cases = [refusal_case(f"attack-{i}", refused=i % 2 == 0) for i in range(20)]
    old = with_cases(base, cases)
    new = with_cases(base, [*reversed(cases), refusal_case("only-new", refused=False)])

    comparison = compare(old, new)

    assert all(v.verdict in ("no significant change", "not measured") for v in comparison.verdicts)
    assert all(v.paired.effect in (0.0, None) for v in comparison.verdicts)
    assert comparison.unpaired_cases == {"stub": 1}
    assert comparison.case_changes == []


def test_compare_matches_runs_by_provider(tmp_path: Path) -> None:
    old = sample_report(tmp_path, providers=("stub", "openai"))
    new = sample_report(tmp_path, providers=("stub", "local"))

    comparison = compare(old, new)

    assert {v.provider for v in comparison.verdicts} == {"stub"}
    assert comparison.unmatched_providers == ["local", "openai"]
