"""The support agent through the graph runner gives the figures its own turn runner gave (ADR 31).

Until ADR 31 the support agent had a runner of its own: each turn an ``ainvoke`` of its graph, what happened
read from the turn's spans. The fixture holds that runner's report on the sealed held-out set and on the
regression set, on the stub (deterministic), as ``harness eval`` wrote it at c834a6e before the datasets
moved to the graph format: every metric with its interval but the latencies (the machine's timing), and
every turn's observations. Run through the graph runner, the same cases must give the same, to the digit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from agent.evaluation.dataset import load_dataset
from agent.evaluation.html import render_html
from agent.evaluation.report import build_report, dataset_info
from tests.agent.evaluation.conftest import GATE_DATASETS

if TYPE_CHECKING:
    from agent.evaluation.results import TurnResult
    from tests.agent.evaluation.conftest import GateRun

FIGURES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "fixtures" / "support-figures-of-the-turn-runner.json").read_text(encoding="utf-8")
)
TURN_FIELDS = (
    "kind",
    "status",
    "answer_kind",
    "retrieved",
    "cited",
    "guardrail_refused",
    "refusal_reason",
    "well_formed",
    "action",
    "model",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "error",
    "failures",
)
"""Everything a turn observed but its node timings."""
DATASETS = pytest.mark.parametrize("path", GATE_DATASETS, ids=[path.stem for path in GATE_DATASETS])


@DATASETS
def test_every_metric_and_its_interval_is_the_turn_runners(path: Path, gate_runs: dict[Path, GateRun]) -> None:
    before = FIGURES[path.stem]["metrics"]
    report = build_report(dataset_info(path, len(load_dataset(path))), [gate_runs[path].run])

    now = {name: as_json(estimate) for name, estimate in report.metrics.items()}

    assert {name: value for name, value in now.items() if not name.endswith("_ms")} == before
    assert {name for name in now if name.endswith("_ms")} >= {"turn_latency_p50_ms", "generate_answer_p95_ms"}


def observed(turn: TurnResult) -> dict[str, Any]:
    return {field: as_json(getattr(turn, field)) for field in TURN_FIELDS}


def as_json(value: object) -> Any:
    """``value`` as the fixture's JSON has it (a tuple is a list there)."""
    return msgspec.json.decode(msgspec.json.encode(value))


@DATASETS
def test_every_turn_observed_what_the_turn_runner_observed(path: Path, gate_runs: dict[Path, GateRun]) -> None:
    before = FIGURES[path.stem]["cases"]

    now = [
        {"id": case.id, "passed": case.passed, "turns": [observed(turn) for turn in case.turns]}
        for case in gate_runs[path].run.cases
    ]

    assert [case["id"] for case in now] == [case["id"] for case in before], "the ids stayed, so old reports pair"
    assert now == before


@DATASETS
def test_each_case_links_its_event_log(path: Path, gate_runs: dict[Path, GateRun]) -> None:
    done = gate_runs[path]
    report = build_report(dataset_info(path, len(done.run.cases)), [done.run], resamples=10)

    assert all(case.events == [f"events/{case.id}.1.jsonl"] for case in report.cases)
    assert all((done.out / case.events[0]).is_file() for case in report.cases)
    page = render_html(report)
    assert all(f'href="events/{case.id}.1.jsonl"' in page for case in report.cases)
