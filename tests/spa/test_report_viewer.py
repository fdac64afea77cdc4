"""The eval report viewer (issue 39 item 6) in a real Chromium: report.json files ``harness eval`` wrote for the
react_agent example, opened under "Evaluation reports": the cases with their verdicts and filters, two reports side
by side with each case's change and the paired verdict, and each node's figures drawn on the walked graph. The
reports are read in the page: nothing is asked of the service.

The baseline is the example's own dataset; the candidate the same with one expectation the graph does not meet
(``lookup-order`` expects the order "delivered"), so exactly one case breaks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.test_browser import open_app

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT / "examples" / "react_agent" / "eval.yaml"


def _eval(out: Path, dataset: Path) -> Path:
    env = {key: value for key, value in os.environ.items() if not key.startswith("HARNESS_")}
    env.update(HARNESS_LLM_PROVIDER="stub", HARNESS_DATA_DIR=str(out / "data"), HARNESS_STUB_TOKEN_DELAY_MS="0")
    command = [
        *(sys.executable, "-m", "api.cli", "eval"),
        *("--config", "examples/langgraph.json", "--graph", "react_agent"),
        *("--dataset", str(dataset), "--epochs", "2", "--out", str(out / "report")),
    ]
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert finished.returncode in (0, 1), finished.stdout + finished.stderr  # 1: a case failed (the candidate)
    return out / "report" / "report.json"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A baseline and a candidate report.json of the react_agent example, two epochs each."""
    out = tmp_path_factory.mktemp("viewer")
    broken = out / "candidate.yaml"
    text = DATASET.read_text(encoding="utf-8")
    assert "{messages.-1.content: shipped}" in text
    broken.write_text(text.replace("{messages.-1.content: shipped}", "{messages.-1.content: delivered}"), "utf-8")
    return _eval(out / "base", DATASET), _eval(out / "cand", broken)


def _visits_per_run(report: dict[str, Any]) -> dict[str, float]:
    records = report["runs"][0]["records"]
    counts: dict[str, int] = {}
    for record in records:
        for step in record["trajectory"]:
            if step["node"] != "__interrupt__":
                counts[step["node"]] = counts.get(step["node"], 0) + 1
    return {node: count / len(records) for node, count in counts.items()}


def _rows(page: Page) -> list[dict[str, str | None]]:
    rows: list[dict[str, str | None]] = page.eval_on_selector_all(
        "[data-region=report-cases] tbody tr",
        "rows => rows.map(r => ({id: r.dataset.case, passed: r.dataset.passed, change: r.dataset.change ?? null}))",
    )
    return rows


def _heat_labels(page: Page) -> dict[str, str]:
    labels: dict[str, str] = page.eval_on_selector_all(
        "[data-region=report-heat] [data-node]",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.node, n.getAttribute('aria-label')]))",
    )
    return labels


def test_one_report_shows_its_cases_metrics_and_each_nodes_figures(
    page: Page, live_server: Server, reports: tuple[Path, Path], shoot: Any
) -> None:
    base, _ = reports
    report = json.loads(base.read_text(encoding="utf-8"))
    asked: list[str] = []
    open_app(page, live_server.url)
    page.on("request", lambda request: asked.append(request.url) if request.resource_type == "fetch" else None)

    page.set_input_files("[data-role=report-base]", str(base))

    page.wait_for_selector("[data-region=reports][data-reports='1']")
    card = page.text_content("[data-region=report-summary] [data-side=report]") or ""
    assert "react_agent" in card
    assert "4 cases × 2 epochs" in card
    rate = report["metrics"]["case_pass_rate"]
    shown = page.text_content("[data-region=report-summary] [data-metric=case_pass_rate]") or ""
    assert f"{rate['value']:.2f} [{rate['ci95'][0]:.2f}, {rate['ci95'][1]:.2f}]" in shown
    rows = _rows(page)
    assert [row["id"] for row in rows] == [case["id"] for case in report["cases"]]
    assert all(row["passed"] == "true" for row in rows)
    assert page.is_hidden("[data-region=report-verdict]"), "one report has no paired verdict"
    labels = _heat_labels(page)
    for node, visits in _visits_per_run(report).items():
        assert labels[node].startswith(f"{node}: visits per run {visits:.2f}"), labels
    cells = page.eval_on_selector_all("[data-region=report-heat] [data-node] .heat-cell", "cells => cells.length")
    assert cells == len(labels), "one cell a node for one report"

    page.select_option("[data-role=heat-metric]", "failures")
    assert _heat_labels(page)["tools"] == "tools: failure rate 0%"
    page.fill("[data-role=case-text]", "refund")
    assert [row["id"] for row in _rows(page)] == ["refund-approved", "refund-rejected"]
    assert page.text_content("[data-role=case-count]") == "2 of 4 cases"
    assert asked == [], "a report is read in the page"
    shoot("70-report-viewer-one")


def test_two_reports_show_each_cases_change_and_the_paired_verdict(
    page: Page, live_server: Server, reports: tuple[Path, Path], shoot: Any
) -> None:
    base, cand = reports
    open_app(page, live_server.url)

    page.set_input_files("[data-role=report-base]", str(base))
    page.set_input_files("[data-role=report-cand]", str(cand))

    page.wait_for_selector("[data-region=reports][data-reports='2']")
    changes = {row["id"]: row["change"] for row in _rows(page)}
    assert changes == {
        "lookup-order": "broken",
        "refund-approved": "same",
        "refund-rejected": "same",
        "no-order-id": "same",
    }
    verdict = page.text_content("[data-region=report-verdict]") or ""
    assert verdict.startswith("Case pass rate: no significant change (McNemar's exact test, p = 1.0000"), verdict
    assert "effect -0.250 over 4 paired cases; 1 worse, 0 better" in verdict
    missed = page.text_content("[data-case=lookup-order] td:last-child") or ""
    assert "delivered" in missed, "what the broken case missed, from the candidate"

    page.select_option("[data-role=case-verdict]", "changed")
    assert [row["id"] for row in _rows(page)] == ["lookup-order"]
    sides = page.eval_on_selector_all(
        "[data-region=report-heat] [data-node=agent] .heat-cell", "cells => cells.map(c => c.dataset.side)"
    )
    assert sides == ["base", "cand"]
    label = _heat_labels(page)["agent"]
    assert label.startswith("agent: visits per run "), label
    assert " → " in label, "baseline → candidate"
    shoot("71-report-viewer-two")


def test_a_file_that_is_not_a_report_is_named_and_changes_nothing(
    page: Page, live_server: Server, reports: tuple[Path, Path], tmp_path: Path
) -> None:
    base, _ = reports
    events = next((base.parent / "events").glob("*.jsonl"))
    open_app(page, live_server.url)
    page.set_input_files("[data-role=report-base]", str(base))
    page.wait_for_selector("[data-region=reports][data-reports='1']")

    page.set_input_files("[data-role=report-cand]", str(events))

    page.wait_for_function("() => document.querySelector('[data-role=reports-note]').textContent !== ''")
    note = page.text_content("[data-role=reports-note]") or ""
    assert note.startswith(f"{events.name} cannot be shown: {events.name} is not JSON"), note
    assert page.get_attribute("[data-region=reports]", "data-reports") == "1"
    page.click("[data-action=clear-reports]")
    assert page.is_hidden("[data-region=report-body]")
