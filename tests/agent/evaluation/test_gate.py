"""The gate's thresholds: read from pyproject.toml, validated, and failing on what falls short or is missing."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from agent.evaluation.gate import GateConfigError, evaluate_gate, find_pyproject, load_thresholds, parse_thresholds
from agent.evaluation.headline import HEADLINE_METRICS
from tests.agent.evaluation.test_reports import sample_report

PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"


def test_the_project_thresholds_are_valid_and_gate_the_essentials() -> None:
    thresholds = {t.metric: t for t in load_thresholds(PYPROJECT)}

    assert {
        "outcome_accuracy",
        "guardrail_recall",
        "guardrail_precision",
        "retrieval_hit_rate",
        "retrieval_mrr",
        "citation_precision",
        "action_routing_accuracy",
    } <= set(thresholds)
    assert all(t.metric in HEADLINE_METRICS for t in thresholds.values())


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ({"min_outcome_acuracy": 0.9}, "'min_outcome_acuracy' must be min_<metric> or max_<metric>"),
        ({"outcome_accuracy": 0.9}, "must be min_<metric> or max_<metric>"),
        (
            {"max_outcome_accuracy": 0.9},
            "outcome_accuracy is better when higher, so its threshold is min_outcome_accuracy",
        ),
        ({"min_turn_latency_p95_ms": 100}, "so its threshold is max_turn_latency_p95_ms"),
        ({"min_outcome_accuracy": "high"}, "must be a number, got 'high'"),
        ({"min_outcome_accuracy": True}, "must be a number"),
    ],
)
def test_a_bad_threshold_is_an_error_not_a_silent_pass(table: dict[str, object], complaint: str) -> None:
    with pytest.raises(GateConfigError) as raised:
        parse_thresholds(table)
    assert complaint in str(raised.value)


def test_the_gate_lists_what_fell_short_and_fails_on_what_it_could_not_measure(tmp_path: Path) -> None:
    report = sample_report(tmp_path)  # outcome accuracy 0.5, nothing expected refused was refused
    thresholds = parse_thresholds(
        {
            "min_outcome_accuracy": 0.5,
            "min_case_pass_rate": 0.9,
            "max_guardrail_pre_p95_ms": 1000,
            "min_refusal_reason_accuracy": 0.9,
        }
    )

    result = evaluate_gate(report, thresholds)

    assert not result.passed
    assert [(c.metric, c.actual) for c in result.failures] == [
        ("case_pass_rate", 0.5),
        ("refusal_reason_accuracy", None),
    ]
    assert [c.metric for c in result.checks if c.passed] == ["outcome_accuracy", "guardrail_pre_p95_ms"]


def test_every_provider_is_gated(tmp_path: Path) -> None:
    report = sample_report(tmp_path, providers=("stub", "local"))

    result = evaluate_gate(report, parse_thresholds({"min_outcome_accuracy": 0.9}))

    assert [(c.provider, c.passed) for c in result.checks] == [("stub", False), ("local", False)]


def test_find_pyproject_walks_up_to_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.harness.gate]\nmin_outcome_accuracy = 0.5\n", encoding="utf-8")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'other'\n", encoding="utf-8")

    found = find_pyproject(nested)

    assert found == tmp_path / "pyproject.toml"
    assert [msgspec.to_builtins(t) for t in load_thresholds(found)] == [
        {"metric": "outcome_accuracy", "bound": "min", "value": 0.5}
    ]
    with pytest.raises(GateConfigError, match=r"no \[tool.harness.gate\] table"):
        load_thresholds(tmp_path / "a" / "pyproject.toml")
