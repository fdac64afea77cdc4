"""``harness eval compare BASE.json CAND.json``: the paired verdict, printed, with the exit code it implies.

``--format`` says how (``agent.evaluation.compare_output``): a table on a terminal, one line per metric in a
CI log, ``json`` for a machine, ``markdown`` for a pull-request comment. Exit codes, whatever the format:
0 no blocking regression, 1 a significant regression at least the minimum effect, 2 the command could not
run (a report or the gate table that cannot be read).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent.evaluation.compare import CompareSettings, compare
from agent.evaluation.compare_output import print_comparison
from agent.evaluation.console import add_format_argument
from agent.evaluation.gate import GateConfigError, find_pyproject, load_gate_config

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from agent.evaluation.console import OutputFormat
    from agent.evaluation.report import Report

__all__ = ("add_compare_parser", "compare_settings", "verdict_of")


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
    add_format_argument(parser, inherited=True)
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


def verdict_of(
    console: Console, baseline: Report, candidate: Report, settings: CompareSettings, form: OutputFormat
) -> int:
    """Compare, print in ``form``, and return the exit code: 1 when a regression blocks."""
    comparison = compare(baseline, candidate, settings)
    print_comparison(console, comparison, form)
    return 0 if comparison.passed else 1
