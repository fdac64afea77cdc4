"""``junit.xml``: the run as JUnit XML, the report every CI system reads (one test case per eval case).

One ``<testsuite>`` per provider; a case is a ``<testcase>`` named by its id, classed by the graph (and
its category when it has one), failed when any epoch failed, with what each failing epoch missed; a case
that raised in every epoch is an ``<error>``. Each suite's ``<properties>`` carry the run's metadata and,
over several epochs, pass@k and pass^k for every k and the flaky cases' count; each case then carries its
own (``epochs_passed``, ``flaky``, ``pass_at_<k>``, ``pass_hat_<k>``) as ``<properties>`` of its
``<testcase>``, and a flaky case says so in ``<system-out>``. Flakiness never changes a verdict: a case is
failed by a failing epoch, whether or not another one passed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

if TYPE_CHECKING:
    from agent.evaluation.report import ProviderReport, Report
    from agent.evaluation.summary import CaseScores

__all__ = ("render_junit",)


def render_junit(report: Report) -> str:
    suites = ET.Element("testsuites", name=f"harness eval: {report.run.graph} on {report.dataset.name}")
    total = failures = errors = 0
    for provider in report.runs:
        suite = _suite(report, provider)
        suites.append(suite)
        total += int(suite.get("tests", "0"))
        failures += int(suite.get("failures", "0"))
        errors += int(suite.get("errors", "0"))
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    suites.set("errors", str(errors))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _suite(report: Report, provider: ProviderReport) -> ET.Element:
    errored = {case.id for case in provider.case_scores if _errored(provider, case)}
    failed = [case for case in provider.case_scores if not case.passed and case.id not in errored]
    suite = ET.Element(
        "testsuite",
        name=f"{report.run.graph}/{provider.provider}",
        tests=str(len(provider.case_scores)),
        failures=str(len(failed)),
        errors=str(len(errored)),
        skipped="0",
        time=f"{provider.duration_s:.3f}",
        timestamp=provider.started_at,
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("graph", report.run.graph),
        ("dataset", report.dataset.name),
        ("dataset_sha256", report.dataset.sha256),
        ("provider", provider.provider),
        ("model", provider.model or ""),
        ("epochs", str(provider.epochs)),
        ("git_commit", report.run.git_commit or ""),
        *_curve_properties(provider),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    for case in provider.case_scores:
        classname = report.run.graph + (f".{case.category}" if case.category else "")
        element = ET.SubElement(suite, "testcase", name=case.id, classname=classname, time=f"{_case_seconds(case):.3f}")
        if case.epochs > 1:
            case_properties = ET.SubElement(element, "properties")
            for name, value in _case_properties(case):
                ET.SubElement(case_properties, "property", name=name, value=value)
        if not case.passed:
            said = f"{case.epochs - case.epochs_passed} of {case.epochs} epoch(s) failed"
            tag = "error" if case.id in errored else "failure"
            detail = ET.SubElement(element, tag, message=said, type="eval")
            detail.text = "\n".join(case.failures) or said
        out = _system_out(case)
        if out:
            ET.SubElement(element, "system-out").text = out
    return suite


def _curve_properties(provider: ProviderReport) -> list[tuple[str, str]]:
    curve = provider.pass_k
    if curve is None or curve.k < 2:
        return []
    properties = [(f"pass_at_{k}", _fraction(e.value)) for k, e in curve.pass_at.items()]
    properties += [(f"pass_hat_{k}", _fraction(e.value)) for k, e in curve.pass_hat.items()]
    return [*properties, ("flaky_cases", str(len(curve.flaky_cases)))]


def _case_properties(case: CaseScores) -> list[tuple[str, str]]:
    properties = [
        ("epochs", str(case.epochs)),
        ("epochs_passed", str(case.epochs_passed)),
        ("flaky", "true" if case.flaky else "false"),
    ]
    properties += [(f"pass_at_{k}", _fraction(value)) for k, value in case.pass_at.items()]
    return properties + [(f"pass_hat_{k}", _fraction(value)) for k, value in case.pass_hat.items()]


def _system_out(case: CaseScores) -> str:
    lines = []
    if case.flaky:
        lines.append(
            f"flaky: passed {case.epochs_passed} of {case.epochs} epochs; "
            f"pass@1 {_fraction(case.pass_at.get(1))}, pass^{case.epochs} {_fraction(case.pass_hat.get(case.epochs))}"
        )
    if case.known_issue and not case.passed:
        lines.append(f"known issue: {case.known_issue}")
    return "\n".join(lines)


def _fraction(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _errored(provider: ProviderReport, case: CaseScores) -> bool:
    records = [r for r in provider.records if r.id == case.id]
    if records:
        return all(r.status == "error" for r in records)
    results = [r for r in provider.cases if r.id == case.id]
    return bool(results) and all(any(t.status == "error" for t in r.turns) for r in results)


def _case_seconds(case: CaseScores) -> float:
    latencies = [v for v in case.scores.get("latency_ms", []) if v is not None]
    if not latencies:
        latencies = [v for v in case.scores.get("turn_latency_p50_ms", []) if v is not None]
    return sum(latencies) / 1000
