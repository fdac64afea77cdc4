"""``report.html``: one self-contained page (inline CSS and SVG, no script, no external asset) that opens offline."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from agent.evaluation.case_diff import case_changes
from agent.evaluation.charts import confusion_svg, interval_svg, latency_svg
from agent.evaluation.formatting import (
    format_estimate,
    format_fraction,
    format_metric,
    format_ms,
    format_ratio,
    is_rate,
    shown_metrics,
)
from agent.evaluation.markdown import describe_metric
from agent.evaluation.records import INTERRUPT_MARKER

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.case_diff import CaseChange
    from agent.evaluation.metrics import Ratio
    from agent.evaluation.records import GraphRecord
    from agent.evaluation.report import ProviderReport, Report
    from agent.evaluation.results import NodeTiming

__all__ = ("render_html",)

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #111827; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #e5e7eb; } h3 { margin-top: 1.6rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #e5e7eb; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f9fafb; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.fail { color: #b91c1c; font-weight: 600; } .pass { color: #15803d; } .muted { color: #6b7280; }
.charts { display: flex; flex-wrap: wrap; gap: 2rem; align-items: flex-start; }
code { background: #f3f4f6; padding: 0 .2rem; border-radius: 3px; }
.trajectory span { display: inline-block; padding: 0 .35rem; margin: 1px; border-radius: 3px; background: #dcfce7; }
.trajectory span.interrupted { background: #fef3c7; } .trajectory span.error { background: #fee2e2; }
.trajectory span.nested { font-size: .85em; opacity: .8; }
.change-fixed, .change-better { color: #15803d; } .change-regressed, .change-worse { color: #b91c1c; font-weight: 600; }
"""


def render_html(report: Report, *, baseline: Report | None = None) -> str:
    d = report.dataset
    run = report.run
    summary = _table(
        ["metric", *(p.provider for p in report.runs), "n", "what it counts"],
        [
            [
                f"<code>{metric}</code>",
                *(_num(format_estimate(metric, p.estimates.get(metric))) for p in report.runs),
                _num(str(report.metrics[metric].n)),
                escape(describe_metric(metric)),
            ]
            for metric in shown_metrics(report.metrics)
        ],
    )
    rates = [(m, report.metrics[m]) for m in shown_metrics(report.metrics) if is_rate(m)]
    changes = case_changes(baseline, report)
    body = [
        f"<h1>Eval report: {escape(run.graph)} on {escape(d.name)}</h1>",
        f'<p class="muted">Generated {escape(report.generated_at)} from <code>{escape(d.name)}</code> '
        f"({d.cases} cases × {run.epochs} epoch(s), sha256 <code>{escape(d.sha256[:12])}</code>) at commit "
        f"<code>{escape((run.git_commit or 'unknown')[:12])}</code>; report schema {report.schema_version}.</p>",
        "<h2>Summary</h2>",
        f'<p class="muted">value ± standard error [95% interval]: {run.resamples} bootstrap draws of whole cases '
        f"(seed {run.seed}).</p>",
        summary,
        f"<h3>Rates of {escape(run.provider)} with their 95% intervals</h3>",
        interval_svg(rates),
        *(_graph_section(p, changes) if p.records else _provider_section(p) for p in report.runs),
    ]
    if baseline is not None and not report.runs[0].records:
        body.append(_support_changes(changes, baseline))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Eval report: {escape(d.name)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _support_changes(changes: dict[str, CaseChange], baseline: Report) -> str:
    moved = [(case_id, change) for case_id, change in changes.items() if change != "same"]
    title = f"<h2>Cases against the baseline ({escape(baseline.run.git_commit or baseline.generated_at)})</h2>"
    if not moved:
        return title + "<p>No case changed.</p>"
    rows = [[f"<code>{escape(c)}</code>", f'<span class="change-{ch}">{ch}</span>'] for c, ch in moved]
    return title + _table(["case", "change"], rows)


def _graph_section(run: ProviderReport, changes: dict[str, CaseChange]) -> str:
    header = [
        "case",
        "passed",
        *(["vs baseline"] if changes else []),
        "epoch",
        "trajectory",
        "tool calls",
        "interrupts",
        "misses",
        "event log",
    ]
    rows: list[list[str]] = []
    for case in run.case_scores:
        records = [r for r in run.records if r.id == case.id]
        for index, record in enumerate(records):
            first = index == 0
            change = changes.get(case.id, "")
            rows.append(
                [
                    f"<code>{escape(case.id)}</code>" if first else "",
                    (_passed_cell(case.epochs_passed, case.epochs) if first else ""),
                    *([f'<span class="change-{change}">{change}</span>' if first else ""] if changes else []),
                    _num(str(record.epoch)),
                    _trajectory_cell(record),
                    "<br>".join(f"<code>{escape(c.name)}({escape(_args(c.args))})</code>" for c in record.tool_calls),
                    _num(str(len(record.interrupts))),
                    '<span class="fail">'
                    + "<br>".join(escape(f) for f in record.failures or ([record.error] if record.error else []))
                    + "</span>",
                    _events_link(record.events),
                ]
            )
    return "\n".join(
        [
            f"<h2>{escape(run.provider)}</h2>",
            f'<p class="muted">{len(run.case_scores)} cases × {run.epochs} epoch(s) in {run.duration_s:.2f} s at '
            f"concurrency {run.concurrency}; {sum(c.passed for c in run.case_scores)} passed every epoch. "
            f"{_REPLAY_NOTE}</p>",
            "<h3>Cases: trajectory, tool calls, interrupts</h3>",
            _table(header, rows),
        ]
    )


_REPLAY_HINT = "Replay it as a live graph: the service's page, Replay a recorded run, this file"
_REPLAY_NOTE = (
    "Each event log is the run's envelopes as JSONL, the shape of <code>GET /runs/{id}/events</code>. To watch a "
    "case again as a live graph, open the service's page (<code>harness serve</code>) and choose its event log "
    "under <em>Replay a recorded run</em>, below the graph."
)


def _events_link(events: str | None) -> str:
    return f'<a href="{escape(events)}" title="{_REPLAY_HINT}">events</a>' if events else ""


_PAUSE_TITLE = "the run paused here at an interrupt"
_OUTCOME_CLASS = {"error": "error", "refused": "error", "paused": "interrupted", "interrupted": "interrupted"}


def _support_trajectory(nodes: Sequence[NodeTiming]) -> str:
    """A support turn's nodes in order, each as its trace entry has it (latency and the node's own outcome)."""
    steps = [
        f'<span class="{_OUTCOME_CLASS.get(n.outcome, "")}" title="{n.latency_ms:.1f} ms, '
        f'{escape(n.outcome)}">{escape(n.node)}</span>'
        for n in nodes
    ]
    return '<div class="trajectory">' + "→".join(steps) + "</div>"


def _passed_cell(passed: int, epochs: int) -> str:
    css = "pass" if passed == epochs else "fail"
    return f'<span class="{css}">{passed}/{epochs}</span>'


def _trajectory_cell(record: GraphRecord) -> str:
    steps = []
    for step in record.trajectory:
        classes = " ".join(
            c for c in (step.outcome if step.outcome != "ok" else "", "nested" if step.depth else "") if c
        )
        title = _PAUSE_TITLE if step.node == INTERRUPT_MARKER else f"{step.latency_ms:.1f} ms, {step.outcome}"
        steps.append(f'<span class="{classes}" title="{escape(title)}">{escape(step.node)}</span>')
    return '<div class="trajectory">' + "→".join(steps) + "</div>"


def _args(args: dict[str, object]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in sorted(args.items()))


def _provider_section(run: ProviderReport) -> str:
    m = run.metrics
    g = m.guardrail
    parts = [
        f"<h2>{escape(run.provider)}</h2>",
        f'<p class="muted">Model <code>{escape(run.model or "unknown")}</code>, {m.cases} cases ({m.turns} turns) in '
        f"{run.duration_s:.2f} s at concurrency {run.concurrency}; {m.cases_passed} passed.</p>",
        '<div class="charts"><div><h3>Latency per node: p50 and p95 of the spans</h3>',
        latency_svg(m.latency_by_node),
        "</div><div><h3>Outcome confusion matrix</h3>",
        confusion_svg(m.confusion),
        "</div></div>",
        "<h3>Latency per node</h3>",
        _table(
            ["node", "spans", "p50 ms", "p95 ms", "max ms"],
            [
                [
                    escape(node),
                    _num(str(s.count)),
                    _num(format_ms(s.p50_ms)),
                    _num(format_ms(s.p95_ms)),
                    _num(format_ms(s.max_ms)),
                ]
                for node, s in m.latency_by_node.items()
            ],
        ),
        "<h3>Outcome accuracy by expected status</h3>",
        _table(
            ["expected", "turns", "accuracy"],
            [
                [escape(s), _num(str(r.total)), _num(format_ratio(r.correct, r.total, r.value))]
                for s, r in m.outcome_by_status.items()
            ],
        ),
        "<h3>Guardrails, retrieval, citations, actions</h3>",
        _table(
            ["measure", "value", "counts"],
            [
                [
                    "guardrail precision",
                    _num(format_fraction(g.precision)),
                    f"TP {g.true_positives}, FP {g.false_positives}",
                ],
                ["guardrail recall", _num(format_fraction(g.recall)), f"TP {g.true_positives}, FN {g.false_negatives}"],
                _ratio_row("refusal reason accuracy", g.reason_accuracy),
                [
                    f"retrieval hit rate @{m.retrieval.k}",
                    _num(format_fraction(m.retrieval.hit_rate)),
                    f"{m.retrieval.hits}/{m.retrieval.turns}",
                ],
                [
                    f"retrieval MRR @{m.retrieval.k}",
                    _num(format_fraction(m.retrieval.mrr)),
                    f"{m.retrieval.turns} turns",
                ],
                [
                    "citation precision",
                    _num(format_fraction(m.citations.precision)),
                    f"{m.citations.retrieved_and_relevant}/{m.citations.cited}",
                ],
                _ratio_row("action routing accuracy", m.action_routing),
                _ratio_row("answer kind accuracy", m.answer_kind),
                _ratio_row("well-formed model answers", m.well_formed),
                ["informational turns refused or paused", _num(str(m.informational_refused_or_paused)), ""],
            ],
        ),
        "<h3>Cases passed by category</h3>",
        _table(
            ["category", "passed"],
            [[escape(c), _num(format_ratio(r.correct, r.total, r.value))] for c, r in m.by_category.items()],
        ),
    ]
    failing = [case for case in run.cases if not case.passed]
    parts.append(f"<h3>Failing cases ({len(failing)})</h3>")
    parts.append(
        _table(
            ["case", "category", "turn", "sent", "misses", "known issue"],
            [
                [
                    f"<code>{escape(case.id)}</code>",
                    escape(case.category),
                    _num(str(turn.index)),
                    escape(turn.sent),
                    '<span class="fail">' + "<br>".join(escape(f) for f in turn.failures) + "</span>",
                    escape(case.known_issue or ""),
                ]
                for case in failing
                for turn in case.turns
                if turn.failures
            ],
        )
        if failing
        else "<p>None.</p>"
    )
    parts.append("<h3>Cases: outcome, trajectory, tokens and cost</h3>")
    parts.append(f'<p class="muted">{_REPLAY_NOTE}</p>')
    parts.append(
        _table(
            [
                "case",
                "epoch",
                "category",
                "passed",
                "statuses",
                "trajectory",
                "input tok",
                "output tok",
                "cost",
                "latency ms",
                "event log",
            ],
            [
                [
                    f"<code>{escape(case.id)}</code>",
                    _num(str(case.epoch)),
                    escape(case.category),
                    '<span class="pass">yes</span>' if case.passed else '<span class="fail">no</span>',
                    escape(" → ".join(turn.status for turn in case.turns)),
                    "<br>".join(_support_trajectory(turn.nodes) for turn in case.turns),
                    _num(str(case.input_tokens)),
                    _num(str(case.output_tokens)),
                    _num(format_metric("cost_usd", case.cost_usd)),
                    _num(format_ms(case.latency_ms)),
                    _events_link(case.events),
                ]
                for case in run.cases
            ],
        )
    )
    return "\n".join(parts)


class _Num(str):
    """A numeric cell: ``_table`` aligns it to the right."""

    __slots__ = ()


def _ratio_row(label: str, ratio: Ratio) -> list[str]:
    return [label, _num(format_fraction(ratio.value)), f"{ratio.correct}/{ratio.total}"]


def _num(text: str) -> str:
    return _Num(escape(text))


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(f'<td class="num">{cell}</td>' if isinstance(cell, _Num) else f"<td>{cell}</td>" for cell in row)
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
