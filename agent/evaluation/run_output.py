"""What ``harness eval`` prints at the end of a run: the metrics, and the thresholds the gate found short.

As a table on a terminal, as plain lines (one per metric, one per threshold) in a CI log, where a table
would be cut to 80 columns (``agent.evaluation.console``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from agent.evaluation.formatting import format_estimate, format_metric, shown_metrics

if TYPE_CHECKING:
    from rich.console import Console

    from agent.evaluation.console import OutputFormat
    from agent.evaluation.gate import GateCheck, GateResult
    from agent.evaluation.report import Report

__all__ = ("print_gate", "print_summary")

_CAPTION = "value ± standard error [95% interval, bootstrap clustered by case]"


def print_summary(console: Console, report: Report, form: OutputFormat) -> None:
    """Every metric with its standard error and 95% interval, providers side by side."""
    run = report.run
    title = f"eval: {run.graph} on {report.dataset.name} ({report.dataset.cases} cases × {run.epochs} epochs)"
    metrics = shown_metrics(report.metrics)
    if form == "text":
        providers = ", ".join(f"{p.provider} ({p.model})" if p.model else p.provider for p in report.runs)
        _lines(console, [f"{title}, {providers}: {_CAPTION}"])
        _lines(console, [f"{metric}: {_values(report, metric)}" for metric in metrics])
        _lines(console, [f"wall time: {_values(report, None)}"])
    else:
        table = Table(title=title, caption=_CAPTION)
        table.add_column("metric", no_wrap=True)
        for provider in report.runs:
            table.add_column(f"{provider.provider}\n{provider.model or ''}", justify="right")
        for metric in metrics:
            table.add_row(metric, *(format_estimate(metric, p.estimates.get(metric)) for p in report.runs))
        table.add_row("wall time", *(f"{p.duration_s:.2f} s" for p in report.runs), end_section=True)
        console.print(table)
    for provider in report.runs:
        if provider.sampling is not None:
            seed = provider.sampling.seed
            _lines(
                console,
                [
                    f"{provider.provider} sampled at temperature {provider.sampling.temperature:g}, seed {seed} "
                    f"(HARNESS_STUB_SEED={seed} draws the same answers again)"
                ],
            )


def print_gate(console: Console, result: GateResult, form: OutputFormat) -> None:
    """What fell short, then every threshold that was not counted and why (an untrusted judge), in any form."""
    failures, uncounted = result.failures, result.not_counted
    counted = len(result.checks) - len(uncounted)
    aside = f"; {len(uncounted)} not counted" if uncounted else ""
    if result.passed:
        console.print(f"[green]gate passed[/]: {counted} thresholds hold{aside}")
    elif not failures:
        _lines(console, [f"gate failed: no threshold counted ({len(uncounted)} not counted)"])
    else:
        title = f"gate failed: {len(failures)} of {counted} thresholds fell short{aside}"
        _print_failures(console, title, failures, form)
    _lines(
        console,
        [
            f"{c.provider} {c.metric}: {_threshold(c)}, actual {_actual(c)}, not counted: {c.not_counted}"
            for c in uncounted
        ],
    )


def _print_failures(console: Console, title: str, failures: list[GateCheck], form: OutputFormat) -> None:
    if form == "text":
        _lines(console, [title])
        _lines(console, [f"{c.provider} {c.metric}: {_threshold(c)}, actual {_actual(c)}" for c in failures])
        return
    table = Table(title=title)
    table.add_column("provider")
    table.add_column("metric", no_wrap=True)
    table.add_column("threshold", justify="right")
    table.add_column("actual", justify="right")
    for check in failures:
        table.add_row(check.provider, check.metric, _threshold(check), "[red]" + _actual(check))
    console.print(table)


def _values(report: Report, metric: str | None) -> str:
    """Each provider's value of ``metric`` (``None``: its wall time), named when there are several."""
    values = [
        (p.provider, format_estimate(metric, p.estimates.get(metric)) if metric else f"{p.duration_s:.2f} s")
        for p in report.runs
    ]
    if len(values) == 1:
        return values[0][1]
    return "; ".join(f"{provider} {value}" for provider, value in values)


def _threshold(check: GateCheck) -> str:
    return f"{'≥' if check.bound == 'min' else '≤'} {format_metric(check.metric, check.threshold)}"


def _actual(check: GateCheck) -> str:
    return format_metric(check.metric, check.actual) if check.actual is not None else "not measured"


def _lines(console: Console, lines: list[str]) -> None:
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
