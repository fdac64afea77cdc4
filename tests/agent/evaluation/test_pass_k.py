"""pass@k and pass^k for every k over a run's epochs, per case and over cases, and the flaky cases, in
report.json, report.md and junit.xml; the values computed here by hand."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

import msgspec
import pytest

from agent.evaluation.pass_k import pass_k_summary
from agent.evaluation.records import Check, GraphRecord
from agent.evaluation.report import Report, build_report, dataset_info, load_report
from agent.evaluation.results import EvalRun
from agent.evaluation.statistics import pass_at_k, pass_curve, pass_hat_k
from agent.evaluation.summary import CaseScores
from agent.evaluation.writer import write_reports

if TYPE_CHECKING:
    from pathlib import Path

EPOCHS = {
    "steady": [True, True, True],
    "broken": [False, False, False],
    "mostly": [True, True, False],
    "rarely": [False, True, False],
}
"""Four cases over three epochs: c = 3, 0, 2 and 1 passes of n = 3."""

# pass@k = 1 - C(n-c, k) / C(n, k), per case steady, broken, mostly, rarely (C(3, 1) = 3, C(3, 2) = 3):
#   k=1: 1, 0, 2/3, 1/3                         mean 2/4 = 0.5
#   k=2: 1, 1 - 3/3 = 0, 1 - 0/3 = 1, 1 - 1/3  mean (2 + 2/3) / 4 = 0.666667
#   k=3: 1, 0, 1, 1                             mean 0.75
# pass^k = C(c, k) / C(n, k):
#   k=1: 1, 0, 2/3, 1/3                         mean 0.5
#   k=2: 1, 0, 1/3, 0                           mean (4/3) / 4 = 0.333333
#   k=3: 1, 0, 0, 0                             mean 0.25
PASS_AT = {1: 0.5, 2: 0.666667, 3: 0.75}
PASS_HAT = {1: 0.5, 2: 0.333333, 3: 0.25}


def test_pass_hat_k_is_the_chance_that_all_k_drawn_epochs_pass() -> None:
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(3, 2, 3) == 0.0
    assert pass_hat_k(3, 2, 2) == pytest.approx(1 / 3)  # C(2,2) / C(3,2)
    assert pass_hat_k(5, 3, 2) == pytest.approx(3 / 10)  # C(3,2) / C(5,2)
    assert pass_hat_k(4, 0, 1) == 0.0
    with pytest.raises(ValueError, match=r"k must be within 1\.\.3, got 0"):
        pass_hat_k(3, 1, 0)


def test_a_case_s_curve_runs_from_k_1_to_its_epochs() -> None:
    assert pass_curve(3, 1) == ({1: 0.333333, 2: 0.666667, 3: 1.0}, {1: 0.333333, 2: 0.0, 3: 0.0})
    assert pass_curve(3, 2) == ({1: 0.666667, 2: 1.0, 3: 1.0}, {1: 0.666667, 2: 0.333333, 3: 0.0})
    assert pass_curve(1, 1) == ({1: 1.0}, {1: 1.0})
    assert pass_at_k(3, 1, 2) == pytest.approx(1 - 1 / 3)  # 1 - C(2,2) / C(3,2)


def case_scores(case_id: str, epochs: list[bool]) -> CaseScores:
    passed = sum(epochs)
    at, hat = pass_curve(len(epochs), passed)
    return CaseScores(
        id=case_id,
        passed=all(epochs),
        epochs_passed=passed,
        epochs=len(epochs),
        scores={"passed": [float(e) for e in epochs]},
        pass_at=at,
        pass_hat=hat,
        flaky=0 < passed < len(epochs),
    )


def test_the_curves_over_cases_are_the_means_of_the_cases_with_intervals() -> None:
    curve = pass_k_summary([case_scores(case_id, epochs) for case_id, epochs in EPOCHS.items()])

    assert curve is not None
    assert curve.k == 3
    assert {k: e.value for k, e in curve.pass_at.items()} == PASS_AT
    assert {k: e.value for k, e in curve.pass_hat.items()} == PASS_HAT
    assert curve.flaky_rate.value == 0.5
    assert curve.flaky_cases == ["mostly", "rarely"]
    for estimate in (*curve.pass_at.values(), *curve.pass_hat.values(), curve.flaky_rate):
        assert estimate.n == 4
        assert estimate.ci95 is not None
        assert estimate.ci95[0] <= estimate.value <= estimate.ci95[1]  # type: ignore[operator]
    assert curve.pass_at[3].ci95 == pytest.approx((0.5, 1.0), abs=0.26)
    assert pass_k_summary([]) is None


def graph_report(tmp_path: Path, epochs: dict[str, list[bool]]) -> Report:
    dataset = tmp_path / "toy-v1.yaml"
    dataset.write_text("cases: []\n", encoding="utf-8")
    records = [
        GraphRecord(
            id=case_id,
            epoch=epoch,
            passed=passed,
            checks=[Check(name="state", passed=passed, detail="" if passed else "messages.-1.content: expected 42")],
            latency_ms=10.0,
        )
        for case_id, outcomes in epochs.items()
        for epoch, passed in enumerate(outcomes, start=1)
    ]
    run = EvalRun(
        provider="stub",
        model="stub-1",
        started_at="2026-12-08T10:00:00.000000Z",
        duration_s=0.5,
        concurrency=1,
        retrieval_k=3,
        cases=[],
        epochs=len(next(iter(epochs.values()))),
        records=records,
    )
    return build_report(dataset_info(dataset, len(epochs)), [run], graph="toy")


def test_report_json_has_each_case_s_curve_the_averaged_curve_and_the_flaky_cases(tmp_path: Path) -> None:
    report = graph_report(tmp_path, EPOCHS)

    by_id = {case.id: case for case in report.cases}
    assert by_id["mostly"].pass_at == {1: 0.666667, 2: 1.0, 3: 1.0}
    assert by_id["mostly"].pass_hat == {1: 0.666667, 2: 0.333333, 3: 0.0}
    assert by_id["rarely"].pass_at == {1: 0.333333, 2: 0.666667, 3: 1.0}
    assert [case.id for case in report.cases if case.flaky] == ["mostly", "rarely"]
    assert report.pass_k is not None
    assert report.pass_k == report.runs[0].pass_k
    assert {k: e.value for k, e in report.pass_k.pass_at.items()} == PASS_AT
    assert {k: e.value for k, e in report.pass_k.pass_hat.items()} == PASS_HAT
    # the curve's ends are the reducers the report had already: pass@n and pass^n
    assert report.metrics["pass_at_k"].value == PASS_AT[3]
    assert report.metrics["pass_hat_k"].value == PASS_HAT[3]
    assert report.metrics["case_pass_rate"].value == PASS_AT[1]

    files = write_reports(report, tmp_path / "out")
    assert load_report(files.json) == report
    raw = msgspec.json.decode(files.json.read_bytes())
    assert raw["cases"][2]["id"] == "mostly"
    assert raw["cases"][2]["pass_at"] == {"1": 0.666667, "2": 1.0, "3": 1.0}
    assert raw["cases"][2]["flaky"] is True
    assert raw["pass_k"]["k"] == 3
    assert raw["pass_k"]["pass_hat"]["2"]["value"] == 0.333333
    assert raw["pass_k"]["flaky_cases"] == ["mostly", "rarely"]
    assert set(raw["pass_k"]["flaky_rate"]) == {"value", "stderr", "ci95", "n"}


def test_report_md_shows_the_curve_and_the_flaky_cases(tmp_path: Path) -> None:
    files = write_reports(graph_report(tmp_path, EPOCHS), tmp_path / "out")

    text = files.markdown.read_text(encoding="utf-8")

    assert "### pass@k and pass^k over 3 epochs" in text
    assert "| 1 | 0.500 ± " in text
    assert re.search(r"\| 2 \| 0\.667 ± 0\.\d{3} \[0\.\d{3}, 1\.000\] \| 0\.333 ± ", text)
    assert "| 3 | 0.750 ± " in text
    assert "#### Flaky cases: 2 of 4 (0.500 ± " in text
    assert "| `mostly` | 2/3 | 0.667 / 1.000 / 1.000 | 0.667 / 0.333 / 0.000 |" in text
    assert "| `rarely` | 1/3 | 0.333 / 0.667 / 1.000 | 0.333 / 0.000 / 0.000 |" in text


def test_junit_marks_a_flaky_case_without_changing_any_verdict(tmp_path: Path) -> None:
    files = write_reports(graph_report(tmp_path, EPOCHS), tmp_path / "out")

    suite = ET.parse(files.junit).getroot().find("testsuite")
    assert suite is not None
    listed = suite.find("properties")
    assert listed is not None
    suite_properties = {p.get("name"): p.get("value") for p in listed}
    assert suite_properties["pass_at_2"] == "0.666667"
    assert suite_properties["pass_hat_3"] == "0.25"
    assert suite_properties["flaky_cases"] == "2"
    assert suite.get("failures") == "3"  # a failing epoch fails its case, as before: broken, mostly, rarely
    cases = {case.get("name"): case for case in suite.iter("testcase")}

    def properties(name: str) -> dict[str | None, str | None]:
        return {p.get("name"): p.get("value") for p in cases[name].iter("property")}

    steady = cases["steady"]
    assert steady.find("failure") is None
    assert steady.find("system-out") is None
    assert properties("steady")["flaky"] == "false"
    mostly = cases["mostly"]
    assert mostly.find("failure") is not None
    assert properties("mostly") == {
        "epochs": "3",
        "epochs_passed": "2",
        "flaky": "true",
        "pass_at_1": "0.666667",
        "pass_at_2": "1",
        "pass_at_3": "1",
        "pass_hat_1": "0.666667",
        "pass_hat_2": "0.333333",
        "pass_hat_3": "0",
    }
    out = mostly.find("system-out")
    assert out is not None
    assert out.text == "flaky: passed 2 of 3 epochs; pass@1 0.666667, pass^3 0"
    assert [child.tag for child in mostly] == ["properties", "failure", "system-out"]
    assert properties("broken")["flaky"] == "false"


def test_one_epoch_adds_no_curve_to_the_markdown_or_junit(tmp_path: Path) -> None:
    report = graph_report(tmp_path, {"once": [True], "never": [False]})
    files = write_reports(report, tmp_path / "out")

    assert report.pass_k is not None
    assert report.pass_k.k == 1
    assert report.pass_k.flaky_cases == []
    assert "pass@k and pass^k" not in files.markdown.read_text(encoding="utf-8")
    junit = files.junit.read_text(encoding="utf-8")
    assert "flaky" not in junit
    assert "pass_at_" not in junit
