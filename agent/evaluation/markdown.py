"""``report.md``: the report as Markdown tables, for a pull request comment or a quick read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.evaluation.case_diff import case_changes
from agent.evaluation.checks import describe_action
from agent.evaluation.formatting import (
    format_estimate,
    format_fraction,
    format_metric,
    format_ms,
    format_ratio,
    shown_metrics,
)
from agent.evaluation.headline import HEADLINE_METRICS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.metrics import Ratio
    from agent.evaluation.report import ProviderReport, Report
    from agent.evaluation.summary import CaseScores

__all__ = ("describe_metric", "markdown_cell", "markdown_table", "render_markdown")


def render_markdown(report: Report, *, baseline: Report | None = None) -> str:
    run = report.run
    lines = [
        f"# Eval report: {run.graph} on {report.dataset.name}",
        "",
        f"Generated {report.generated_at} from `{report.dataset.name}` ({report.dataset.cases} cases × {run.epochs} "
        f"epoch(s), sha256 `{report.dataset.sha256[:12]}`) at commit `{(run.git_commit or 'unknown')[:12]}`; "
        f"report schema {report.schema_version}.",
        "",
        "## Summary",
        "",
        "Each metric: value ± standard error [95% interval]; the interval comes from "
        f"{run.resamples} bootstrap draws of whole cases (seed {run.seed}).",
        "",
    ]
    lines += markdown_table(
        ["metric", *(p.provider for p in report.runs), "n", "what it counts"],
        [
            [
                f"`{metric}`",
                *(format_estimate(metric, p.estimates.get(metric)) for p in report.runs),
                str(report.metrics[metric].n) if metric in report.metrics else "",
                describe_metric(metric),
            ]
            for metric in shown_metrics(report.metrics)
        ],
    )
    changes = case_changes(baseline, report)
    if baseline is not None:
        lines += ["", f"## Cases against the baseline ({baseline.run.git_commit or baseline.generated_at})", ""]
        moved = {case_id: change for case_id, change in changes.items() if change != "same"}
        lines += (
            markdown_table(
                ["case", "change", "epochs passed now"], [[f"`{c}`", ch, _passed(report, c)] for c, ch in moved.items()]
            )
            if moved
            else ["No case changed."]
        )
    for provider in report.runs:
        lines += _graph_section(provider) if provider.records else _provider_section(provider)
        lines += _pass_k_section(provider)
    return "\n".join(lines) + "\n"


def _pass_k_section(run: ProviderReport) -> list[str]:
    """pass@k and pass^k for every k and the flaky cases, when the run had more than one epoch."""
    curve = run.pass_k
    if curve is None or curve.k < 2:
        return []
    ks = range(1, curve.k + 1)
    lines = [
        "",
        f"### pass@k and pass^k over {curve.k} epochs",
        "",
        "pass@k: the chance that at least one of k epochs of a case passes (a user who may retry k times); "
        "pass^k: that all k pass (a user who needs it right k times running). Each is the mean over cases "
        "± standard error [95% interval].",
        "",
    ]
    lines += markdown_table(
        ["k", "pass@k", "pass^k"],
        [
            [
                str(k),
                format_estimate("pass_at_k", curve.pass_at.get(k)),
                format_estimate("pass_hat_k", curve.pass_hat.get(k)),
            ]
            for k in ks
        ],
    )
    flaky = [case for case in run.case_scores if case.flaky]
    lines += [
        "",
        f"#### Flaky cases: {len(flaky)} of {len(run.case_scores)} "
        f"({format_estimate('flaky_rate', curve.flaky_rate)}), passed in some epochs and failed in others",
        "",
    ]
    if not flaky:
        return [*lines, "None."]
    return lines + markdown_table(
        ["case", "epochs passed", f"pass@k, k = 1..{curve.k}", f"pass^k, k = 1..{curve.k}"],
        [
            [
                f"`{case.id}`",
                f"{case.epochs_passed}/{case.epochs}",
                " / ".join(format_fraction(case.pass_at.get(k)) for k in ks),
                " / ".join(format_fraction(case.pass_hat.get(k)) for k in ks),
            ]
            for case in flaky
        ],
    )


def describe_metric(metric: str) -> str:
    """What a metric counts, in words."""
    spec = HEADLINE_METRICS.get(metric)
    if spec is not None:
        return spec.description
    return _OTHER_METRICS.get(metric, "mean score of this check over cases (each case's epochs averaged)")


_OTHER_METRICS = {
    "pass_at_k": "cases that passed in at least one of their k epochs (pass@k)",
    "pass_hat_k": "cases that passed in every one of their k epochs (pass^k)",
    "majority_pass_rate": "cases that passed in more than half of their epochs",
    "latency_ms": "a case's wall time, every turn and resume added up",
    "tokens": "input and output tokens of a case's model calls",
}


def _passed(report: Report, case_id: str) -> str:
    case = next((c for c in report.cases if c.id == case_id), None)
    return f"{case.epochs_passed}/{case.epochs}" if case else ""


def _graph_section(run: ProviderReport) -> list[str]:
    lines = [
        "",
        f"## {run.provider}",
        "",
        f"{len(run.case_scores)} cases × {run.epochs} epoch(s) in {run.duration_s:.2f} s at concurrency "
        f"{run.concurrency}; {sum(c.passed for c in run.case_scores)} passed every epoch.",
    ]
    failing = [case for case in run.case_scores if not case.passed]
    lines += ["", f"### Failing cases ({len(failing)})", ""]
    lines += (
        markdown_table(
            ["case", "epochs passed", "misses", "trajectory"],
            [
                [
                    f"`{c.id}`",
                    f"{c.epochs_passed}/{c.epochs}",
                    markdown_cell("; ".join(c.failures)),
                    _trajectory(run, c),
                ]
                for c in failing
            ],
        )
        if failing
        else ["None."]
    )
    return lines


def _trajectory(run: ProviderReport, case: CaseScores) -> str:
    record = next((r for r in run.records if r.id == case.id and not r.passed), None)
    return " → ".join(record.node_names(nested=True, marked=True)) if record else ""


def _provider_section(run: ProviderReport) -> list[str]:
    m = run.metrics
    lines = [
        "",
        f"## {run.provider}",
        "",
        f"Model `{run.model or 'unknown'}`, {m.cases} cases ({m.turns} turns) in {run.duration_s:.2f} s "
        f"at concurrency {run.concurrency}; {m.cases_passed} passed.",
        "",
        "### Outcome accuracy by expected status",
        "",
    ]
    lines += markdown_table(
        ["expected", "turns", "accuracy"],
        [
            [status, str(r.total), format_ratio(r.correct, r.total, r.value)]
            for status, r in m.outcome_by_status.items()
        ],
    )
    lines += ["", "### Outcome confusion matrix (rows: expected, columns: actual)", ""]
    lines += markdown_table(
        ["expected \\ actual", *m.confusion.actual],
        [[label, *map(str, row)] for label, row in zip(m.confusion.expected, m.confusion.counts, strict=True)],
    )
    g = m.guardrail
    lines += ["", "### Guardrails, retrieval, citations, actions", ""]
    lines += markdown_table(
        ["measure", "value", "counts"],
        [
            ["guardrail precision", format_fraction(g.precision), f"TP {g.true_positives}, FP {g.false_positives}"],
            ["guardrail recall", format_fraction(g.recall), f"TP {g.true_positives}, FN {g.false_negatives}"],
            ["refusal reason accuracy", format_fraction(g.reason_accuracy.value), _counts(g.reason_accuracy)],
            [
                f"retrieval hit rate @{m.retrieval.k}",
                format_fraction(m.retrieval.hit_rate),
                f"{m.retrieval.hits}/{m.retrieval.turns}",
            ],
            [f"retrieval MRR @{m.retrieval.k}", format_fraction(m.retrieval.mrr), f"{m.retrieval.turns} turns"],
            [
                "citation precision",
                format_fraction(m.citations.precision),
                f"{m.citations.retrieved_and_relevant}/{m.citations.cited}",
            ],
            ["action routing accuracy", format_fraction(m.action_routing.value), _counts(m.action_routing)],
            ["answer kind accuracy", format_fraction(m.answer_kind.value), _counts(m.answer_kind)],
            ["well-formed model answers", format_fraction(m.well_formed.value), _counts(m.well_formed)],
            ["informational turns refused or paused", str(m.informational_refused_or_paused), ""],
        ],
    )
    lines += ["", "### Latency per node (OpenTelemetry span durations)", ""]
    rows = [
        [node, str(s.count), format_ms(s.p50_ms), format_ms(s.p95_ms), format_ms(s.max_ms)]
        for node, s in m.latency_by_node.items()
    ]
    if m.turn_latency:
        t = m.turn_latency
        rows.append(["*whole turn*", str(t.count), format_ms(t.p50_ms), format_ms(t.p95_ms), format_ms(t.max_ms)])
    lines += markdown_table(["node", "spans", "p50 ms", "p95 ms", "max ms"], rows)
    u = m.usage
    lines += [
        "",
        "### Usage",
        "",
        f"{u.input_tokens} input and {u.output_tokens} output tokens "
        f"({u.input_tokens_per_case:.1f} / {u.output_tokens_per_case:.1f} per case), cost "
        f"{format_metric('cost_usd', u.cost_usd)} ({format_metric('cost_usd', u.cost_usd_per_case)} per case)"
        + (f"; {u.unpriced_cases} cases used a model without a known price" if u.unpriced_cases else "")
        + ".",
        "",
        "### Cases passed by category",
        "",
    ]
    lines += markdown_table(
        ["category", "passed"], [[c, format_ratio(r.correct, r.total, r.value)] for c, r in m.by_category.items()]
    )
    failing = [case for case in run.cases if not case.passed]
    lines += ["", f"### Failing cases ({len(failing)})", ""]
    if failing:
        lines += markdown_table(
            ["case", "category", "turn", "sent", "misses", "known issue"],
            [
                [
                    f"`{case.id}`",
                    case.category,
                    str(turn.index),
                    markdown_cell(turn.sent),
                    markdown_cell("; ".join(turn.failures)),
                    markdown_cell(case.known_issue or ""),
                ]
                for case in failing
                for turn in case.turns
                if turn.failures
            ],
        )
    else:
        lines.append("None.")
    fixed = [case for case in run.cases if case.passed and case.known_issue]
    if fixed:
        lines += ["", "### Known issues that now pass (update the dataset)", ""]
        lines += [f"- `{case.id}`: {case.known_issue}" for case in fixed]
    lines += ["", "### Cases", ""]
    lines += markdown_table(
        ["case", "category", "passed", "statuses", "action", "input tok", "output tok", "cost", "latency ms"],
        [
            [
                f"`{case.id}`",
                case.category,
                "yes" if case.passed else "**no**",
                " → ".join(turn.status for turn in case.turns),
                ", ".join(describe_action(t.action) for t in case.turns if t.action) or "",
                str(case.input_tokens),
                str(case.output_tokens),
                format_metric("cost_usd", case.cost_usd),
                format_ms(case.latency_ms),
            ]
            for case in run.cases
        ],
    )
    return lines


def _counts(ratio: Ratio) -> str:
    return f"{ratio.correct}/{ratio.total}"


def markdown_cell(text: str) -> str:
    """``text`` safe in a table's cell: a ``|`` escaped, on one line."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured table's lines; each cell already made safe (``markdown_cell``)."""
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(" --- " for _ in header) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]
