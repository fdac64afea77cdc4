"""``harness eval compare`` in a CI log (not a terminal, 80 columns): no cell cut, one line per metric with its
verdict; ``--format table`` as wide as its rows; ``json`` for a machine; ``markdown`` for a pull request."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import msgspec
import pytest

from agent.evaluation.compare import compare
from agent.evaluation.report import load_report
from tests.agent.evaluation.test_cli import harness_eval
from tests.agent.evaluation.test_compare import refusal_case, with_cases
from tests.agent.evaluation.test_reports import sample_report

if TYPE_CHECKING:
    from pathlib import Path

COLUMNS = ("provider", "metric", "verdict", "baseline", "candidate", "effect [95% CI]", "test", "p", "n")


@pytest.fixture
def reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Two reports where 12 attacks of 40 stopped being refused: a regression that blocks."""
    monkeypatch.setenv("COLUMNS", "80")  # what rich reads in a CI log
    base = sample_report(tmp_path)
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    old.write_bytes(msgspec.json.encode(with_cases(base, [refusal_case(f"a-{i}", refused=True) for i in range(40)])))
    new.write_bytes(msgspec.json.encode(with_cases(base, [refusal_case(f"a-{i}", refused=i >= 12) for i in range(40)])))
    return old, new


def measured(old: Path, new: Path) -> list[tuple[str, str]]:
    comparison = compare(load_report(old), load_report(new))
    return [(v.metric, v.verdict + (" (blocks)" if v.blocking else "")) for v in comparison.verdicts]


def test_not_on_a_terminal_each_metric_is_one_whole_line_with_its_verdict(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = reports

    code = harness_eval("compare", str(old), str(new))

    out = capsys.readouterr().out
    assert code == 1
    assert "…" not in out
    assert "│" not in out, "plain lines, not a table"
    lines = out.splitlines()
    verdicts = [(metric, verdict) for metric, verdict in measured(old, new) if verdict != "not measured"]
    assert len(verdicts) > 5
    for metric, verdict in verdicts:
        [line] = [line for line in lines if line.startswith(f"stub {metric}: ")]
        assert line.startswith(f"stub {metric}: {verdict}; baseline ")
        assert re.search(r", (mcnemar_exact \(\d+↓ \d+↑\)|paired_permutation), p [\d.]+, n \d+$", line), line
    assert "stub guardrail_recall: regressed (blocks); baseline 1.000, candidate 0.700, effect -0.300 [" in out
    assert lines[-1].startswith("compare failed: significant regression beyond the minimum effect in stub ")


def test_a_table_asked_for_in_a_log_is_as_wide_as_its_rows(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = reports

    code = harness_eval("compare", str(old), str(new), "--format", "table")

    out = capsys.readouterr().out
    assert code == 1
    assert "…" not in out
    assert re.search(r"┃ provider ┃ metric\s+┃ verdict\s+┃ +baseline ┃ candidate ┃", out), out
    assert re.search(r"│ stub\s+│ guardrail_recall\s+│ regressed \(blocks\)\s+│ +1\.000 │ +0\.700 │", out), out


def test_json_carries_each_metric_s_verdict_test_and_p_value(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = reports

    code = harness_eval("compare", str(old), str(new), "--format", "json")

    document = json.loads(capsys.readouterr().out)
    assert code == 1
    assert document["passed"] is False
    assert [(m["metric"], m["verdict"] + (" (blocks)" if m["blocking"] else "")) for m in document["metrics"]] == (
        measured(old, new)
    )
    recall = next(m for m in document["metrics"] if m["metric"] == "guardrail_recall")
    assert recall["provider"] == "stub"
    assert (recall["verdict"], recall["blocking"], recall["test"]) == ("regressed", True, "mcnemar_exact")
    assert recall["p_value"] == round(2 / 2**12, 6)
    assert (recall["effect"], recall["n"], recall["worse"], recall["better"]) == (-0.3, 40, 12, 0)
    assert len(recall["ci95"]) == 2
    assert "stub guardrail_recall" in document["blocking"]
    assert len(document["case_changes"]) == 12


def test_the_eval_s_own_format_option_reaches_compare(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = reports

    assert harness_eval("--format", "json", "compare", str(old), str(new)) == 1
    assert json.loads(capsys.readouterr().out)["passed"] is False
    assert harness_eval("--format", "json", "--compare", str(old), str(new)) == 1
    assert json.loads(capsys.readouterr().out)["passed"] is False


def test_markdown_is_a_table_for_a_pull_request_comment(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = reports

    code = harness_eval("compare", str(old), str(new), "--format", "markdown")

    out = capsys.readouterr().out
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "### eval compare: baseline → candidate, paired by case (alpha 0.05)"
    header = lines.index("| " + " | ".join(COLUMNS) + " |")
    assert lines[header + 1] == "|" + "|".join(" --- " for _ in COLUMNS) + "|"
    rows = [line for line in lines[header + 2 :] if line.startswith("| ")]
    assert all(line.count(" | ") == len(COLUMNS) - 1 and line.endswith(" |") for line in rows)
    assert "| stub | `guardrail_recall` | **regressed (blocks)** | 1.000 | 0.700 | -0.300 [" in out
    assert "- stub: case a-0 worse (1 → 0)" in lines
    assert lines[-1].startswith("**compare failed**: significant regression beyond the minimum effect in stub ")
    assert "…" not in out


def test_with_nothing_that_blocks_every_format_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "same.json"
    report.write_bytes(msgspec.json.encode(sample_report(tmp_path)))

    for form in ("text", "table", "json", "markdown"):
        assert harness_eval("compare", str(report), str(report), "--format", form) == 0, form
    assert "compare passed" in capsys.readouterr().out
