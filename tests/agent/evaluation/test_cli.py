"""``harness eval``: the command's parser, its exit codes, its output files, its gate and compare tables."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

import pytest

from agent.evaluation.cli import add_eval_parser, run_eval_command
from agent.evaluation.dataset import SEALED_DATASET
from agent.evaluation.report import load_report
from tests.agent.evaluation.conftest import SMALL_DATASET, write_dataset

if TYPE_CHECKING:
    from pathlib import Path


def harness_eval(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="harness")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    return run_eval_command(parser.parse_args(["eval", *argv]))


def test_the_defaults_are_the_bundled_dataset_and_the_configured_provider() -> None:
    parser = argparse.ArgumentParser(prog="harness")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))

    args = parser.parse_args(["eval"])

    assert args.dataset == SEALED_DATASET
    assert args.providers is None
    assert args.concurrency is None, "chosen per provider: 8, or 1 for the local model's one-slot server"
    assert (args.out, args.gate, args.compare) == (None, False, None)
    with pytest.raises(SystemExit):
        parser.parse_args(["eval", "--concurrency", "0"])


def gate_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "gate.toml"
    path.write_text(f"[tool.harness.gate]\n{body}\n", encoding="utf-8")
    return path


def test_eval_writes_the_reports_and_passes_the_gate(eval_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(eval_env / "small.jsonl", SMALL_DATASET)
    gate = gate_file(eval_env, "min_outcome_accuracy = 1.0\nmax_errors = 0")

    code = harness_eval("--dataset", str(dataset), "--out", str(eval_env / "out"), "--gate", "--gate-config", str(gate))

    out = capsys.readouterr().out
    assert code == 0
    assert "gate passed: 2 thresholds hold" in out
    assert "outcome_accuracy" in out
    for name in ("report.json", "report.md", "report.html"):
        assert (eval_env / "out" / name).is_file()
    report = load_report(eval_env / "out" / "report.json")
    assert report.dataset.name == "small"
    assert [run.provider for run in report.runs] == ["stub"]


def test_the_reports_go_to_the_data_directory_by_default(eval_env: Path) -> None:
    dataset = write_dataset(eval_env / "small.jsonl", SMALL_DATASET[:1])

    assert harness_eval("--dataset", str(dataset)) == 0

    assert (eval_env / "data" / "eval" / "report.json").is_file()


@pytest.mark.parametrize("form", ["text", "table"])
def test_a_gate_that_falls_short_exits_1_with_what_fell_short(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # a CI log: not a terminal, and rich's width would be 80
    dataset = write_dataset(eval_env / "small.jsonl", SMALL_DATASET)
    gate = gate_file(eval_env, "min_cases = 60\nmin_outcome_accuracy = 0.5")
    chosen = ["--format", "table"] if form == "table" else []  # not a terminal: text unless asked

    code = harness_eval(
        "--dataset", str(dataset), "--out", str(eval_env / "out"), "--gate", "--gate-config", str(gate), *chosen
    )

    out = capsys.readouterr().out
    assert code == 1
    assert "gate failed: 1 of 2 thresholds fell short" in out
    assert "…" not in out, "not a cell cut, however wide"
    if form == "text":
        assert "\nstub cases: ≥ 60, actual 6\n" in out
        assert "\ncase_pass_rate: " in out, "the summary: one line per metric"
        assert "│" not in out
    else:
        assert re.search(r"stub\s*│\s*cases\s*│\s*≥ 60\s*│\s*6\s*│", out)
        assert re.search(r"│ cost_usd_per_case\s*│\s*\$0\.000000 ± \$0\.000000 \[\$0\.000000, \$0\.000000\] │", out)
    assert "outcome_accuracy: ≥" not in out, "only what fell short is listed"
    assert not re.search(r"│\s*outcome_accuracy\s*│\s*≥", out)


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["--provider", "nosuch"], "unknown provider 'nosuch'"),
        (["--provider", "stub", "--provider", "stub"], "--provider stub is given more than once"),
        (["--dataset", "missing.jsonl"], "cannot read the dataset"),
        (["--gate", "--gate-config", "missing.toml"], "cannot read"),
        (["--compare", "old.json", "new.json"], "cannot read the report"),
        (["compare", "old.json", "new.json", "--format", "json"], "cannot read the report"),
        (["--format", "json"], "--format json prints a comparison"),
    ],
)
def test_a_command_that_cannot_run_exits_2_with_a_reason(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], complaint: str
) -> None:
    monkeypatch.chdir(eval_env)

    code = harness_eval(*argv)

    assert code == 2
    assert complaint in capsys.readouterr().err


def test_compare_prints_the_paired_verdicts_of_two_reports(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    small = write_dataset(eval_env / "small.jsonl", SMALL_DATASET)
    assert harness_eval("--dataset", str(small), "--out", str(eval_env / "old")) == 0
    fewer = write_dataset(eval_env / "fewer.jsonl", SMALL_DATASET[:2])
    assert harness_eval("--dataset", str(fewer), "--out", str(eval_env / "new")) == 0
    capsys.readouterr()

    code = harness_eval("--compare", str(eval_env / "old" / "report.json"), str(eval_env / "new" / "report.json"))

    out = capsys.readouterr().out
    assert code == 0
    assert "paired by case" in out
    assert "the reports ran different datasets" in out
    assert "stub: 4 case(s) in only one report, left out" in out
    assert "\nstub case_pass_rate: no significant change; baseline 1.000, candidate 1.000," in out, out


@pytest.mark.local_model
def test_eval_on_the_local_model_starts_and_stops_its_own_server(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing listens where the local provider looks by default: the eval must bring its own server."""
    monkeypatch.delenv("HARNESS_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("HARNESS_LLM_LOCAL_BASE_URL", raising=False)
    dataset = write_dataset(eval_env / "one.jsonl", SMALL_DATASET[:1])

    code = harness_eval("--dataset", str(dataset), "--provider", "local", "--out", str(eval_env / "out"))

    assert code == 0, capsys.readouterr().err
    run = load_report(eval_env / "out" / "report.json").runs[0]
    assert run.provider == "local"
    assert run.model == "smollm2-135m-instruct"
    assert run.concurrency == 1
    assert run.metrics.errors == 0


def test_a_sampled_eval_resumes_from_its_own_base_seed_and_refuses_another_sampling(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An interrupted eval whose stub sampled with no seed set draws its remaining cases from the seed it began
    with: the resumed report is the uninterrupted one, and names that one seed."""
    monkeypatch.setenv("HARNESS_STUB_TEMPERATURE", "1")
    monkeypatch.delenv("HARNESS_STUB_SEED", raising=False)
    dataset = write_dataset(eval_env / "small.jsonl", SMALL_DATASET)
    out = eval_env / "out"
    assert harness_eval("--dataset", str(dataset), "--out", str(out), "--epochs", "3") == 0
    whole = load_report(out / "report.json")
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines()
    results.write_bytes(b"\n".join(lines[:3]) + b"\n")  # the header and two cases: the rest was interrupted

    assert harness_eval("--dataset", str(dataset), "--out", str(out), "--epochs", "3", "--resume") == 0

    resumed = load_report(out / "report.json")
    assert resumed.runs[0].sampling == whole.runs[0].sampling is not None
    drawn = [(c.id, c.epoch, [t.cited for t in c.turns]) for c in whole.runs[0].cases]
    assert [(c.id, c.epoch, [t.cited for t in c.turns]) for c in resumed.runs[0].cases] == drawn
    capsys.readouterr()
    monkeypatch.setenv("HARNESS_STUB_TEMPERATURE", "0.5")
    assert harness_eval("--dataset", str(dataset), "--out", str(out), "--epochs", "3", "--resume") == 2
    assert "another sampling, the stub sampling at 1" in capsys.readouterr().err
