"""``harness eval compare BASE.json CAND.json``: the paired verdict, printed, with the exit code it implies.

Exit codes: 0 no blocking regression, 1 a significant regression at least the minimum effect, 2 the
command could not run (a report or the gate table that cannot be read).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from agent.evaluation.compare import CompareSettings, compare, paired_metric
from agent.evaluation.gate import GateConfigError, find_pyproject, load_gate_config

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from agent.evaluation.compare import Comparison, MetricVerdict
    from agent.evaluation.report import Report

__all__ = ("add_compare_parser", "compare_settings", "print_comparison", "verdict_of")


def add_compare_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "compare",
        help="paired baseline-vs-candidate verdict per metric; exit 1 on a significant regression",
        description="Pair the two reports' cases by id and test, per metric, whether the candidate changed it.",
    )
    parser.add_argument("baseline", type=Path, metavar="BASE.json")
    parser.add_argument("candidate", type=Path, metavar="CAND.json")
    parser.add_argument(
        "--gate-config", type=Path, metavar="PYPROJECT", help="read alpha and min_effect from this file's gate table"
    )
    return parser


def compare_settings(pyproject: Path | None) -> CompareSettings:
    """The named file's ``[tool.harness.gate.compare]``; else the nearest project's; else the defaults.

    Comparing two reports needs no project: outside one, alpha 0.05 and a minimum effect of 0.03 apply.
    """
    if pyproject is None:
        try:
            pyproject = find_pyproject()
        except GateConfigError:
            return CompareSettings()
    return load_gate_config(pyproject).compare


def verdict_of(console: Console, baseline: Report, candidate: Report, settings: CompareSettings) -> int:
    """Compare, print, and return the exit code: 1 when a regression blocks."""
    comparison = compare(baseline, candidate, settings)
    print_comparison(console, comparison)
    return 0 if comparison.passed else 1


def print_comparison(console: Console, comparison: Comparison) -> None:
    if not comparison.same_dataset:
        console.print("[yellow]the reports ran different datasets: only the cases both have are compared[/]")
    table = Table(title=f"eval compare: baseline → candidate, paired by case (alpha {comparison.alpha:g})")
    for column in ("provider", "metric", "verdict", "baseline", "candidate", "effect [95% CI]", "test", "p", "n"):
        left = column in ("provider", "metric", "verdict", "test")
        table.add_column(column, justify="left" if left else "right")
    colours = {"improved": "green", "regressed": "red"}
    for verdict in comparison.verdicts:
        if verdict.verdict == "not measured":
            continue
        paired = verdict.paired
        colour = colours.get(verdict.verdict)
        label = verdict.verdict + (" (blocks)" if verdict.blocking else "")
        table.add_row(
            verdict.provider,
            verdict.metric,
            f"[{colour}]{label}[/]" if colour else label,
            _value(verdict.metric, verdict.baseline),
            _value(verdict.metric, verdict.candidate),
            _effect(verdict),
            paired.test + (f" ({paired.worse}↓ {paired.better}↑)" if paired.test == "mcnemar_exact" else ""),
            f"{paired.p_value:.4f}" if paired.p_value is not None else "–",
            str(paired.n),
        )
    console.print(table)
    for change in comparison.case_changes:
        what = "[green]better[/]" if change.candidate > change.baseline else "[red]worse[/]"
        console.print(f"{change.provider}: case {change.case_id} {what} ({change.baseline:g} → {change.candidate:g})")
    for provider, count in comparison.unpaired_cases.items():
        if count:
            console.print(f"{provider}: {count} case(s) in only one report, left out")
    if comparison.unmatched_providers:
        console.print(f"only in one report: {', '.join(comparison.unmatched_providers)}")
    blocking = comparison.blocking
    if blocking:
        names = ", ".join(f"{v.provider} {v.metric}" for v in blocking)
        console.print(f"[red]compare failed[/]: significant regression beyond the minimum effect in {names}")
    else:
        console.print("[green]compare passed[/]: no significant regression beyond the minimum effect")


def _value(metric: str, value: float | None) -> str:
    if value is None:
        return "–"
    spec = paired_metric(metric)
    unit = spec.unit if spec else "rate"
    return f"{value:,.2f} ms" if unit == "ms" else f"${value:.6f}" if unit == "usd" else f"{value:.3f}"


def _effect(verdict: MetricVerdict) -> str:
    paired = verdict.paired
    if paired.effect is None or paired.ci95 is None:
        return "–"
    low, high = paired.ci95
    return f"{paired.effect:+.3f} [{low:+.3f}, {high:+.3f}]"
