"""Inline SVG charts for report.html: drawn here as text, so the page needs no script and no network."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from agent.evaluation.formatting import format_ms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.metrics import ConfusionMatrix, LatencyStats
    from agent.evaluation.statistics import Estimate

__all__ = ("confusion_svg", "interval_svg", "latency_svg")

_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def latency_svg(latency: dict[str, LatencyStats], *, width: int = 640) -> str:
    """Horizontal bars per node: p50 over p95, on one scale so nodes compare at a glance."""
    label_w, value_w, row_h, top = 130, 120, 34, 24
    plot_w = width - label_w - value_w
    height = top + row_h * max(len(latency), 1) + 8
    top_ms = max((s.p95_ms for s in latency.values()), default=0.0) or 1.0
    parts = [
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" {_FONT}>',
        "<title>Latency per node, p50 and p95 of the node spans (ms)</title>",
        f'<rect x="{label_w}" y="6" width="10" height="10" fill="#2563eb"/><text x="{label_w + 14}" y="15">p50</text>',
        f'<rect x="{label_w + 50}" y="6" width="10" height="10" fill="#93c5fd"/>'
        f'<text x="{label_w + 64}" y="15">p95</text>',
    ]
    for row, (node, stats) in enumerate(latency.items()):
        y = top + row * row_h
        p95_w = max(plot_w * stats.p95_ms / top_ms, 1.0)
        p50_w = max(plot_w * stats.p50_ms / top_ms, 1.0)
        parts += [
            f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{escape(node)}</text>',
            f'<rect x="{label_w}" y="{y + 4}" width="{p95_w:.1f}" height="22" fill="#93c5fd"/>',
            f'<rect x="{label_w}" y="{y + 9}" width="{p50_w:.1f}" height="12" fill="#2563eb"/>',
            f'<text x="{label_w + p95_w + 6:.1f}" y="{y + 19}">'
            f"{format_ms(stats.p50_ms)} / {format_ms(stats.p95_ms)} ms</text>",
        ]
    parts.append("</svg>")
    return "".join(parts)


def confusion_svg(matrix: ConfusionMatrix) -> str:
    """Rows are the expected statuses, columns the actual ones; a cell's shade is its share of the row."""
    label_w, head_h, cell_w, cell_h = 110, 44, 78, 36
    width = label_w + cell_w * len(matrix.actual) + 8
    height = head_h + cell_h * len(matrix.expected) + 8
    parts = [
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" {_FONT}>',
        "<title>Outcome confusion matrix: expected status (rows) against actual status (columns)</title>",
        f'<text x="{label_w}" y="14" font-weight="bold">actual →</text>',
    ]
    for col, label in enumerate(matrix.actual):
        x = label_w + col * cell_w + cell_w / 2
        parts.append(f'<text x="{x:.1f}" y="{head_h - 8}" text-anchor="middle">{escape(label)}</text>')
    for row, (expected, counts) in enumerate(zip(matrix.expected, matrix.counts, strict=True)):
        y = head_h + row * cell_h
        parts.append(
            f'<text x="{label_w - 8}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="end">{escape(expected)}</text>'
        )
        total = sum(counts)
        for col, (actual, count) in enumerate(zip(matrix.actual, counts, strict=True)):
            share = count / total if total else 0.0
            colour = "22,163,74" if actual == expected else "220,38,38"
            x = label_w + col * cell_w
            weight = ' font-weight="bold"' if count else ""
            parts += [
                f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="rgba({colour},{0.08 + 0.82 * share:.3f})" stroke="#e5e7eb"/>',
                f'<text x="{x + cell_w / 2:.1f}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="middle"'
                f"{weight}>{count}</text>",
            ]
    parts.append("</svg>")
    return "".join(parts)


def interval_svg(rows: Sequence[tuple[str, Estimate]], *, width: int = 640) -> str:
    """Rates in [0, 1], one row each: the 95% interval as a bar with whiskers, the value as a dot."""
    label_w, value_w, row_h, top = 190, 150, 24, 22
    plot_w = width - label_w - value_w
    height = top + row_h * max(len(rows), 1) + 8
    parts = [
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" {_FONT}>',
        "<title>Each rate with its 95% interval (bootstrap clustered by case)</title>",
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + plot_w * tick
        parts += [
            f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 6}" stroke="#e5e7eb"/>',
            f'<text x="{x:.1f}" y="{top - 9}" text-anchor="middle" fill="#6b7280">{tick:g}</text>',
        ]
    for row, (metric, estimate) in enumerate(rows):
        y = top + row * row_h + row_h / 2
        parts.append(f'<text x="{label_w - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(metric)}</text>')
        if estimate.value is None:
            continue
        if estimate.ci95 is not None:
            low, high = (label_w + plot_w * _clamp(v) for v in estimate.ci95)
            parts += [
                f'<rect x="{low:.1f}" y="{y - 5:.1f}" width="{max(high - low, 1.0):.1f}" height="10" '
                'fill="#bfdbfe" stroke="#2563eb" stroke-width="1"/>',
            ]
        x = label_w + plot_w * _clamp(estimate.value)
        interval = f" [{estimate.ci95[0]:.3f}, {estimate.ci95[1]:.3f}]" if estimate.ci95 else ""
        parts += [
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#1d4ed8"/>',
            f'<text x="{label_w + plot_w + 8}" y="{y + 4:.1f}">{estimate.value:.3f}{interval}</text>',
        ]
    parts.append("</svg>")
    return "".join(parts)


def _clamp(value: float) -> float:
    return min(max(value, 0.0), 1.0)
