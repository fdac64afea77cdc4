"""The gate's thresholds: read from pyproject.toml, validated, and failing on what falls short or is missing."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from agent.evaluation.gate import (
    GateConfigError,
    evaluate_gate,
    find_pyproject,
    load_gate_config,
    load_thresholds,
    parse_gate_config,
    parse_thresholds,
)
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


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ({}, "holds no threshold"),
        ({"compare": {"alpha": 0.05}}, "holds no threshold"),
        ({"min_cases": 1, "providers": {"local": {}}}, "[tool.harness.gate.providers.local] holds no threshold"),
        ({"min_cases": 1, "providers": {"local": {"min_outcome_acuracy": 0.5}}}, "'min_outcome_acuracy' must be"),
        ({"min_cases": 1, "local": {"min_cases": 1}}, "[tool.harness.gate.local] is not a known table"),
        ({"min_cases": 1, "compare": {"alpha": 0.7}}, "'alpha' must be within (0, 0.5]"),
        ({"min_cases": 1, "compare": {"min_effect": -0.1}}, "'min_effect' cannot be negative"),
        ({"min_cases": 1, "compare": {"min_efect": 0.1}}, "'min_efect' is not a setting"),
        ({"min_cases": 1, "compare": {"min_effect_nosuch": 0.1}}, "'min_effect_nosuch' is not a setting"),
        ({"min_cases": 1, "compare": {"alpha": "low"}}, "'alpha' must be a number"),
    ],
)
def test_an_empty_or_unknown_table_or_key_is_an_error(table: dict[str, object], complaint: str) -> None:
    with pytest.raises(GateConfigError) as raised:
        parse_gate_config(table)
    assert complaint in str(raised.value)


def test_a_provider_with_its_own_table_is_held_to_it(tmp_path: Path) -> None:
    report = sample_report(tmp_path, providers=("stub", "local"))
    config = parse_gate_config(
        {
            "min_outcome_accuracy": 0.9,
            "providers": {"local": {"min_outcome_accuracy": 0.5, "max_errors": 0}},
            "compare": {"alpha": 0.01, "min_effect": 0.05, "min_effect_turn_latency_p50_ms": 20},
        }
    )

    result = evaluate_gate(report, config)

    assert [(c.provider, c.metric, c.passed) for c in result.checks] == [
        ("stub", "outcome_accuracy", False),
        ("local", "outcome_accuracy", True),
        ("local", "errors", True),
    ]
    assert (config.compare.alpha, config.compare.min_effect) == (0.01, 0.05)
    assert config.compare.minimum_effect("turn_latency_p50_ms") == 20
    assert config.compare.minimum_effect("input_tokens_per_case") is None
    assert config.compare.minimum_effect("trajectory") == 0.05, "a graph's check is a score in [0, 1]"


def test_the_project_table_names_the_local_model_and_the_comparison() -> None:
    config = load_gate_config(PYPROJECT)

    assert "local" in config.providers
    assert {"guardrail_recall", "well_formed_rate", "action_routing_accuracy", "errors"} <= {
        t.metric for t in config.providers["local"]
    }
    assert "support-v2-heldout" in config.datasets
    assert "well_formed_rate" in {t.metric for t in config.thresholds}
    assert 0 < config.compare.alpha <= 0.05
