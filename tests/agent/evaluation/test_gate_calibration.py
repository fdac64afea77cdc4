"""The gate and a calibrated judge (ADR 45): with ``judge_min_kappa`` a judge metric's threshold counts only when a
saved calibration of the same judge has a kappa lower bound at least that; otherwise it is not counted, and says
why. Without the key every threshold counts, as before."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

import msgspec
import pytest
from rich.console import Console

from agent.evaluation.calibration import Calibration, CalibrationError, Confusion, load_calibration
from agent.evaluation.calibration import run_calibrate_command as calibrate_command
from agent.evaluation.gate import GateConfigError, evaluate_gate, parse_gate_config
from agent.evaluation.judge import JudgeInfo
from agent.evaluation.run_output import print_gate
from agent.evaluation.statistics import Estimate
from tests.agent.evaluation.test_calibration import give_feedback, judged_report, pairs
from tests.agent.evaluation.test_cli import gate_file, harness_eval

if TYPE_CHECKING:
    from pathlib import Path

    from agent.evaluation.gate import GateResult
    from agent.evaluation.report import Report

JUDGE = JudgeInfo(provider="openai", model="gpt-judge")


def report() -> Report:
    """A graph's run whose judge scored 0.75 on average, graded by ``JUDGE``; no errors."""
    judged = judged_report({"r_1": 1.0, "r_2": 0.5})
    judged.judge = JUDGE
    return judged


def calibration(lower: float | None, *, metric: str = "judge", judge: JudgeInfo | None = JUDGE) -> Calibration:
    interval = None if lower is None else (lower, 0.9)
    return Calibration(
        metric=metric,
        threshold=0.5,
        kappa=Estimate(value=None if lower is None else 0.6, stderr=None, ci95=interval, n=20),
        confusion=Confusion(pass_good=8, pass_bad=2, fail_good=2, fail_bad=8),
        labels=20,
        unmatched=0,
        judge=judge,
    )


GATE = {"min_judge": 0.5, "max_errors": 0}


def by_metric(result: GateResult) -> dict[str, tuple[bool, str | None]]:
    return {check.metric: (check.passed, check.not_counted) for check in result.checks}


def test_without_a_minimum_a_judge_threshold_counts_as_any_other() -> None:
    config = parse_gate_config(GATE)

    assert config.judge_min_kappa is None
    assert by_metric(evaluate_gate(report(), config)) == {"judge": (True, None), "errors": (True, None)}
    failing = evaluate_gate(report(), parse_gate_config({"min_judge": 0.8, "max_errors": 0}))
    assert not failing.passed
    assert [(c.metric, c.actual) for c in failing.failures] == [("judge", 0.75)]


def test_a_calibrated_judge_counts() -> None:
    config = parse_gate_config({**GATE, "judge_min_kappa": 0.4})

    result = evaluate_gate(report(), config, calibration(0.4))

    assert result.passed
    assert by_metric(result) == {"judge": (True, None), "errors": (True, None)}
    assert not result.not_counted


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        (calibration(0.12), "judge not calibrated (kappa lower bound 0.120 < 0.4)"),
        (None, "judge not calibrated (no calibration given; judge_min_kappa is 0.4)"),
        (calibration(None), "judge not calibrated (kappa is undefined on the calibration's labels)"),
        (calibration(0.8, metric="tone"), "judge not calibrated (the calibration is of tone, not judge)"),
        (
            calibration(0.8, judge=JudgeInfo(provider="openai", model="gpt-other")),
            "judge not calibrated (the calibration measured openai/gpt-other prompt",
        ),
    ],
)
def test_an_untrusted_judge_is_not_counted_and_says_why(given: Calibration | None, reason: str) -> None:
    config = parse_gate_config({**GATE, "judge_min_kappa": 0.4})

    result = evaluate_gate(report(), config, given)

    assert result.passed, "not counted fails nothing: the other thresholds held"
    assert result.failures == []
    [judge] = result.not_counted
    assert judge.metric == "judge"
    assert judge.actual == 0.75
    assert not judge.passed, "a threshold it could not trust is never passed"
    assert judge.not_counted is not None
    assert judge.not_counted.startswith(reason)
    assert by_metric(result)["errors"] == (True, None)


def test_an_uncounted_judge_does_not_hide_another_failure() -> None:
    config = parse_gate_config({"min_judge": 0.5, "min_cases": 5, "judge_min_kappa": 0.4})

    result = evaluate_gate(report(), config, calibration(0.1))

    assert not result.passed
    assert [c.metric for c in result.failures] == ["cases"]
    assert [c.metric for c in result.not_counted] == ["judge"]


def test_a_gate_of_judge_thresholds_only_that_counts_none_fails() -> None:
    config = parse_gate_config({"min_judge": 0.5, "judge_min_kappa": 0.4})

    result = evaluate_gate(report(), config)

    assert not result.passed
    assert result.failures == []
    assert len(result.not_counted) == 1


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ({"min_judge": 0.5, "judge_min_kappa": 1.5}, "'judge_min_kappa' must be a kappa within [-1, 1], got 1.5"),
        ({"min_judge": 0.5, "judge_min_kappa": "high"}, "'judge_min_kappa' must be a kappa"),
        ({"judge_min_kappa": 0.4}, "holds no threshold"),
        ({"max_judge": 0.5}, "judge is better when higher, so its threshold is min_judge"),
        ({"min_cases": 1, "providers": {"local": {"judge_min_kappa": 0.4}}}, "'judge_min_kappa' must be min_<metric>"),
    ],
)
def test_a_bad_minimum_is_an_error(table: dict[str, object], complaint: str) -> None:
    with pytest.raises(GateConfigError) as raised:
        parse_gate_config(table)
    assert complaint in str(raised.value)


@pytest.mark.parametrize("form", ["text", "table"])
def test_the_console_lists_what_was_not_counted_even_when_the_gate_passes(
    form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = parse_gate_config({**GATE, "judge_min_kappa": 0.4})
    result = evaluate_gate(report(), config, calibration(0.12))

    print_gate(Console(width=200), result, form)  # type: ignore[arg-type]

    out = capsys.readouterr().out
    assert "gate passed: 1 thresholds hold; 1 not counted" in out
    assert "stub judge: ≥ 0.500, actual 0.750, not counted: judge not calibrated (kappa lower bound 0.120 < 0.4)" in out


def test_calibrate_out_saves_what_the_gate_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    table = pairs(6, 1, 2, 5)
    asyncio.run(give_feedback(data, [good for _, good in table]))
    judged = judged_report({f"r_{i}": float(j) for i, (j, _) in enumerate(table)})
    judged.judge = JUDGE
    path = tmp_path / "report.json"
    path.write_bytes(msgspec.json.encode(judged))
    monkeypatch.setenv("HARNESS_DATA_DIR", str(data))
    monkeypatch.delenv("HARNESS_DATABASE_URL", raising=False)
    monkeypatch.delenv("HARNESS_ENCRYPTION_KEY", raising=False)
    out = tmp_path / "calibration.json"
    args = argparse.Namespace(calibrate_report=path, metric="judge", threshold=0.5, min_kappa=None, calibration_out=out)

    assert calibrate_command(args) == 0

    assert f"wrote {out}" in capsys.readouterr().out
    saved = load_calibration(out)
    assert (saved.metric, saved.labels, saved.confusion.n) == ("judge", 14, 14)
    assert saved.kappa.value == pytest.approx(4 / 7)
    assert (saved.report, saved.report_generated_at, saved.judge) == (str(path), judged.generated_at, JUDGE)
    config = parse_gate_config({**GATE, "judge_min_kappa": -1.0})
    assert evaluate_gate(report(), config, saved).not_counted == []


def test_a_calibration_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "calibration.json"
    broken.write_text("{}", encoding="utf-8")

    with pytest.raises(CalibrationError, match=r"is not a calibration of `harness eval calibrate --out`"):
        load_calibration(broken)
    with pytest.raises(CalibrationError, match=r"cannot read the calibration"):
        load_calibration(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("body", "extra", "complaint"),
    [
        ("max_errors = 0", ["--gate"], "--calibration needs judge_min_kappa in [tool.harness.gate]"),
        ("max_errors = 0\njudge_min_kappa = 0.4", [], "--calibration is read by --gate"),
        ("max_errors = 0\njudge_min_kappa = 0.4", ["--gate"], "is not a calibration of"),
    ],
)
def test_eval_refuses_a_calibration_nothing_would_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, extra: list[str], complaint: str
) -> None:
    gate = gate_file(tmp_path, body)
    saved = tmp_path / "calibration.json"
    saved.write_text("{}", encoding="utf-8")

    code = harness_eval("--gate-config", str(gate), "--calibration", str(saved), *extra)

    assert code == 2
    assert complaint in capsys.readouterr().err
