"""``harness eval calibrate``: Cohen's kappa against hand-computed values, the labels as the store keeps them
(feedback, approval decisions), the verdicts read from a report, and ``--min-kappa`` on the interval's lower
bound."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Literal

import msgspec
import pytest

from agent.evaluation.calibration import (
    Confusion,
    Label,
    calibrate,
    cohens_kappa,
    read_labels,
    run_calibrate_command,
    verdicts_of,
)
from agent.evaluation.capture import case_id_of
from agent.evaluation.records import Check, GraphRecord
from agent.evaluation.report import DatasetInfo, Report, build_report
from agent.evaluation.results import EvalRun
from agent.interactions import SqliteInteractionLog
from contracts import Answer, ChatResponse, RunFeedback, TraceEntry, Usage

if TYPE_CHECKING:
    from pathlib import Path


def pairs(pass_good: int, pass_bad: int, fail_good: int, fail_bad: int) -> list[tuple[bool, bool]]:
    return (
        [(True, True)] * pass_good
        + [(True, False)] * pass_bad
        + [(False, True)] * fail_good
        + [(False, False)] * fail_bad
    )


def test_kappa_is_the_agreement_beyond_chance_computed_by_hand() -> None:
    # 20 + 15 of 50 agree: p_o = 0.7; the judge passes 25/50, people say good 30/50:
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    assert cohens_kappa(pairs(20, 5, 10, 15)) == pytest.approx(0.4)
    # p_o = 0.6; margins 0.5 and 0.5: p_e = 0.5; kappa = 0.2
    assert cohens_kappa(pairs(3, 2, 2, 3)) == pytest.approx(0.2)
    # p_o = 45/60 = 0.75; judge passes 40/60, people good 35/60:
    # p_e = 2/3 * 7/12 + 1/3 * 5/12 = 19/36; kappa = (3/4 - 19/36) / (17/36) = 8/17
    assert cohens_kappa(pairs(30, 10, 5, 15)) == pytest.approx(8 / 17)
    assert cohens_kappa(pairs(4, 0, 0, 6)) == pytest.approx(1.0)
    assert cohens_kappa(pairs(0, 5, 5, 0)) == pytest.approx(-1.0)


def test_kappa_is_undefined_without_pairs_or_when_both_sides_give_one_answer() -> None:
    assert cohens_kappa([]) is None
    assert cohens_kappa(pairs(7, 0, 0, 0)) is None
    assert cohens_kappa(pairs(0, 0, 0, 3)) is None
    assert cohens_kappa(pairs(3, 4, 0, 0)) == pytest.approx(0.0), "a judge that always passes agrees by chance"


def test_calibrate_matches_labels_to_verdicts_and_resamples_runs() -> None:
    table = pairs(20, 5, 10, 15)
    labels = [Label(run_id=f"r_{i}", source="feedback", good=good) for i, (_, good) in enumerate(table)]
    verdicts = {f"r_{i}": judged for i, (judged, _) in enumerate(table[:25])}
    verdicts |= {case_id_of(f"r_{i}"): judged for i, (judged, _) in enumerate(table) if i >= 25}
    labels.append(Label(run_id="r_nowhere", source="approval", good=True))

    calibration = calibrate(labels, verdicts, resamples=200, seed=7)

    assert calibration.confusion == Confusion(pass_good=20, pass_bad=5, fail_good=10, fail_bad=15)
    assert (calibration.labels, calibration.unmatched) == (51, 1)
    assert calibration.kappa.value == pytest.approx(0.4)
    assert calibration.kappa.n == 50
    assert calibration.kappa.ci95 is not None
    low, high = calibration.kappa.ci95
    assert low < 0.4 < high
    assert calibrate(labels, verdicts, resamples=200, seed=7) == calibration, "the same seed, the same interval"


def response(run_id: str, status: Literal["completed", "rejected"], *nodes: str) -> ChatResponse:
    return ChatResponse(
        session_id="s_1",
        run_id=run_id,
        status=status,
        answer=Answer(kind="answer", text="done"),
        citations=[],
        pending_approval=None,
        trace=[TraceEntry(node=node, latency_ms=1.0, outcome="ok") for node in nodes],  # type: ignore[arg-type]
        usage=Usage(model="stub-1", input_tokens=1, output_tokens=1, cost_usd=0.0),
    )


async def test_the_labels_are_feedback_and_approval_decisions(tmp_path: Path) -> None:
    log = SqliteInteractionLog(tmp_path / "interactions.sqlite")
    try:
        at = "2026-12-07T00:00:00.000000Z"
        await log.record("i_1", "refund", response("r_approved", "completed", "human_approval", "execute_action"), at)
        await log.record("i_2", "refund", response("r_rejected", "rejected", "human_approval"), at)
        await log.record("i_3", "question", response("r_plain", "completed", "generate_answer"), at)
        await log.record_feedback(RunFeedback(run_id="r_plain", session_id="s_1", score=0, comment=None, at=at))
        labels = await read_labels(log)
    finally:
        log.close()

    assert labels == [
        Label(run_id="r_plain", source="feedback", good=False),
        Label(run_id="r_approved", source="approval", good=True),
        Label(run_id="r_rejected", source="approval", good=False),
    ]


def judged_report(scores: dict[str, float]) -> Report:
    records = [
        GraphRecord(id=case_id, passed=score >= 0.5, checks=[Check(name="judge", passed=score >= 0.5, score=score)])
        for case_id, score in scores.items()
    ]
    run = EvalRun(
        provider="stub",
        model="stub-1",
        started_at="2026-12-07T00:00:00.000000Z",
        duration_s=0.1,
        concurrency=1,
        retrieval_k=3,
        cases=[],
        records=records,
    )
    dataset = DatasetInfo(name="labelled", path="labelled.jsonl", sha256="0" * 64, cases=len(records))
    return build_report(dataset, [run], graph="toy")


def test_the_verdicts_are_the_judge_scores_of_the_report_at_the_threshold() -> None:
    report = judged_report({"r_1": 0.75, "r_2": 0.25, "r_3": 0.5})

    assert verdicts_of(report, "judge", 0.5) == {"r_1": True, "r_2": False, "r_3": True}
    assert verdicts_of(report, "judge", 0.8) == {"r_1": False, "r_2": False, "r_3": False}
    assert verdicts_of(report, "state", 0.5) == {}


async def give_feedback(data: Path, labels: list[bool]) -> None:
    log = SqliteInteractionLog(data / "interactions.sqlite")
    try:
        for i, good in enumerate(labels):
            score: Literal[0, 1] = 1 if good else 0
            at = f"2026-12-07T00:00:{i:02d}.000000Z"
            await log.record_feedback(RunFeedback(run_id=f"r_{i}", session_id="s_1", score=score, comment=None, at=at))
    finally:
        log.close()


@pytest.mark.parametrize(("min_kappa", "exit_code"), [(None, 0), (-1.0, 0), (0.99, 1)])
def test_the_command_prints_kappa_and_the_table_and_gates_on_the_lower_bound(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    min_kappa: float | None,
    exit_code: int,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    table = pairs(6, 1, 2, 5)
    asyncio.run(give_feedback(data, [good for _, good in table]))
    report = tmp_path / "report.json"
    report.write_bytes(msgspec.json.encode(judged_report({f"r_{i}": float(j) for i, (j, _) in enumerate(table)})))
    monkeypatch.setenv("HARNESS_DATA_DIR", str(data))
    monkeypatch.delenv("HARNESS_DATABASE_URL", raising=False)
    monkeypatch.delenv("HARNESS_ENCRYPTION_KEY", raising=False)
    args = argparse.Namespace(calibrate_report=report, metric="judge", threshold=0.5, min_kappa=min_kappa)

    code = run_calibrate_command(args)

    out = capsys.readouterr().out
    assert code == exit_code
    # p_o = 11/14; margins 7/14 and 8/14: p_e = 0.5; kappa = (11/14 - 1/2) / (1/2) = 4/7
    assert "kappa 0.571" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["judge", "pass", "6", "1"] in rows
    assert ["judge", "fail", "2", "5"] in rows
