"""A comparison in each form ``harness eval compare --format`` prints: table, text, json, markdown.

Every form says the same per metric (provider, metric, verdict, baseline, candidate, effect with its 95%
interval, test, p-value, n) and, but json, leaves out the metrics neither run measured. ``text`` is one line
per metric with its verdict, what a CI log shows whole; ``json`` is for a machine (every verdict, the
pass/fail of the whole); ``markdown`` for a pull-request comment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from rich.table import Table

from agent.evaluation.compare import paired_metric
from agent.evaluation.markdown import markdown_cell, markdown_table

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from agent.evaluation.compare import Comparison, MetricVerdict
    from agent.evaluation.console import OutputFormat

__all__ = (
    "comparison_json",
    "comparison_lines",
    "comparison_markdown",
    "comparison_table",
    "print_comparison",
)

_COLUMNS = ("provider", "metric", "verdict", "baseline", "candidate", "effect [95% CI]", "test", "p", "n")
_COLOURS = {"improved": "green", "regressed": "red"}


def print_comparison(console: Console, comparison: Comparison, form: OutputFormat) -> None:
    if form == "json":
        console.out(comparison_json(comparison), highlight=False)
    elif form == "markdown":
        console.out(comparison_markdown(comparison), highlight=False)
    elif form == "text":
        for line in comparison_lines(comparison):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    else:
        if not comparison.same_dataset:
            console.print(f"[yellow]{_DIFFERENT_DATASETS}[/]")
        console.print(comparison_table(comparison))
        for note in _notes(comparison, _coloured):
            console.print(note, highlight=False, soft_wrap=True)


def comparison_table(comparison: Comparison) -> Table:
    table = Table(title=_title(comparison))
    for column in _COLUMNS:
        table.add_column(column, justify="left" if column in ("provider", "metric", "verdict", "test") else "right")
    for verdict in _measured(comparison):
        colour = _COLOURS.get(verdict.verdict)
        label = _label(verdict)
        table.add_row(*_row(verdict, label=f"[{colour}]{label}[/]" if colour else label))
    return table


def comparison_lines(comparison: Comparison) -> list[str]:
    """The title, then one line per metric (``provider metric: verdict; baseline …, candidate …, effect …,
    test, p …, n …``), then the cases that changed, what was left out and the outcome, last."""
    lines = [_title(comparison), *([] if comparison.same_dataset else [_DIFFERENT_DATASETS])]
    for verdict in _measured(comparison):
        provider, metric, label, baseline, candidate, effect, test, p, n = _row(verdict, label=_label(verdict))
        lines.append(
            f"{provider} {metric}: {label}; baseline {baseline}, candidate {candidate}, effect {effect}, "
            f"{test}, p {p}, n {n}"
        )
    return lines + _notes(comparison, _plain)


def comparison_markdown(comparison: Comparison) -> str:
    """A heading, the verdicts as a table, the notes as a list and the outcome in bold, last."""
    rows = [
        [markdown_cell(cell) for cell in _row(verdict, label=_label(verdict), code=True)]
        for verdict in _measured(comparison)
    ]
    lines = [f"### {_title(comparison)}", ""]
    lines += [] if comparison.same_dataset else [f"_{_DIFFERENT_DATASETS}_", ""]
    lines += [*markdown_table(_COLUMNS, rows), ""]
    *notes, outcome = _notes(comparison, _bold)
    lines += [*(f"- {markdown_cell(note)}" for note in notes), *([""] if notes else []), outcome]
    return "\n".join(lines)


def comparison_json(comparison: Comparison) -> str:
    document = {
        "passed": comparison.passed,
        "alpha": comparison.alpha,
        "same_dataset": comparison.same_dataset,
        "metrics": [_metric_json(verdict) for verdict in comparison.verdicts],
        "blocking": [f"{v.provider} {v.metric}" for v in comparison.blocking],
        "case_changes": [msgspec.to_builtins(change) for change in comparison.case_changes],
        "unpaired_cases": comparison.unpaired_cases,
        "unmatched_providers": comparison.unmatched_providers,
    }
    return msgspec.json.format(msgspec.json.encode(document), indent=2).decode()


_DIFFERENT_DATASETS = "the reports ran different datasets: only the cases both have are compared"


def _title(comparison: Comparison) -> str:
    return f"eval compare: baseline → candidate, paired by case (alpha {comparison.alpha:g})"


def _measured(comparison: Comparison) -> list[MetricVerdict]:
    return [verdict for verdict in comparison.verdicts if verdict.verdict != "not measured"]


def _label(verdict: MetricVerdict) -> str:
    return verdict.verdict + (" (blocks)" if verdict.blocking else "")


def _row(verdict: MetricVerdict, *, label: str, code: bool = False) -> tuple[str, ...]:
    paired = verdict.paired
    flips = f" ({paired.worse}↓ {paired.better}↑)" if paired.test == "mcnemar_exact" else ""
    return (
        verdict.provider,
        f"`{verdict.metric}`" if code else verdict.metric,
        f"**{label}**" if code and verdict.blocking else label,
        _value(verdict.metric, verdict.baseline),
        _value(verdict.metric, verdict.candidate),
        _effect(verdict),
        paired.test + flips,
        f"{paired.p_value:.4f}" if paired.p_value is not None else "–",
        str(paired.n),
    )


def _notes(comparison: Comparison, mark: Callable[[str, str], str]) -> list[str]:
    """What follows the verdicts: the cases that changed, what was left out, and the outcome (last); ``mark``
    gives a word its colour (or its emphasis)."""
    notes = [
        f"{c.provider}: case {c.case_id} "
        + (mark("better", "green") if c.candidate > c.baseline else mark("worse", "red"))
        + f" ({c.baseline:g} → {c.candidate:g})"
        for c in comparison.case_changes
    ]
    notes += [
        f"{provider}: {count} case(s) in only one report, left out"
        for provider, count in comparison.unpaired_cases.items()
        if count
    ]
    if comparison.unmatched_providers:
        notes.append(f"only in one report: {', '.join(comparison.unmatched_providers)}")
    blocking = comparison.blocking
    if blocking:
        names = ", ".join(f"{v.provider} {v.metric}" for v in blocking)
        notes.append(f"{mark('compare failed', 'red')}: significant regression beyond the minimum effect in {names}")
    else:
        notes.append(f"{mark('compare passed', 'green')}: no significant regression beyond the minimum effect")
    return notes


def _plain(word: str, colour: str) -> str:
    return word


def _coloured(word: str, colour: str) -> str:
    return f"[{colour}]{word}[/]"


def _bold(word: str, colour: str) -> str:
    return f"**{word}**" if word.startswith("compare") else word


def _metric_json(verdict: MetricVerdict) -> dict[str, Any]:
    paired = verdict.paired
    return {
        "provider": verdict.provider,
        "metric": verdict.metric,
        "verdict": verdict.verdict,
        "blocking": verdict.blocking,
        "direction": verdict.direction,
        "baseline": verdict.baseline,
        "candidate": verdict.candidate,
        "effect": paired.effect,
        "ci95": list(paired.ci95) if paired.ci95 is not None else None,
        "test": paired.test,
        "p_value": paired.p_value,
        "n": paired.n,
        "worse": paired.worse,
        "better": paired.better,
    }


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
