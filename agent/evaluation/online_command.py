"""``harness eval online``: the stored online scores over a window, with intervals, and against a baseline window.

Reads the stores ``harness serve`` writes them to (the data directory's ``online_eval.sqlite``, or PostgreSQL with
``HARNESS_DATABASE_URL``). Exit codes: 0 printed, 1 a scorer's pass rate regressed significantly against
``--baseline-since`` (Fisher's exact test at the gate's ``alpha``), 2 the command could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from agent.clock import format_timestamp
from agent.evaluation.compare_command import compare_settings
from agent.evaluation.gate import GateConfigError
from agent.evaluation.online_report import OnlineReport, Window, online_report

if TYPE_CHECKING:
    from agent.evaluation.online import OnlineScore
    from agent.evaluation.statistics import Estimate

__all__ = ("add_online_parser", "parse_moment", "run_online_command")

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([dhms])\s*$")
_UNIT_S = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}


def parse_moment(text: str, *, now_ns: int | None = None) -> str:
    """``24h`` (that long before now: d, h, m, s) or an ISO 8601 time (UTC when it names no zone), as RFC 3339."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    found = _DURATION.match(text)
    if found is not None:
        return format_timestamp(now_ns - round(float(found[1]) * _UNIT_S[found[2]] * 1e9))
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a duration (24h, 7d, 90m) nor an ISO 8601 time (2026-12-07T14:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = int(moment.timestamp())
    return format_timestamp(seconds * 10**9 + moment.microsecond * 1000)


def add_online_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "online",
        help="online scores of production runs over a window: pass rates with 95%% intervals, drift vs a baseline",
        description=(
            "Read the scores online evaluation stored (HARNESS_ONLINE_EVAL_RATE) for the runs that finished in the "
            "window, and print each assistant's and scorer's pass rate with its 95% interval; with "
            "--baseline-since, the change against that window (Fisher's exact test) and exit 1 on a significant "
            "regression."
        ),
    )
    parser.add_argument("--since", required=True, type=parse_moment, metavar="WHEN", help="24h, 7d or an ISO time")
    parser.add_argument("--until", type=parse_moment, metavar="WHEN", help="the window's end (default: now)")
    parser.add_argument("--assistant", help="only this assistant (graph id; `support` for /chat)")
    parser.add_argument(
        "--baseline-since", type=parse_moment, metavar="WHEN", help="compare with the runs finished from then"
    )
    parser.add_argument(
        "--baseline-until", type=parse_moment, metavar="WHEN", help="until then (default: the window's start)"
    )
    parser.add_argument("--json", dest="online_json", action="store_true", help="print the report as JSON")


def run_online_command(args: argparse.Namespace) -> int:
    from agent.config import AgentConfig, ConfigError
    from agent.evaluation.online_store import open_online_scores
    from agent.stores import StoreUnavailable

    window = Window(since=args.since, until=args.until or format_timestamp(time.time_ns()))
    baseline = None
    if args.baseline_since is not None:
        baseline = Window(since=args.baseline_since, until=args.baseline_until or window.since)
    elif args.baseline_until is not None:
        print("harness eval online: --baseline-until needs --baseline-since", file=sys.stderr)
        return 2

    async def read() -> tuple[list[OnlineScore], list[OnlineScore]]:
        async with open_online_scores(AgentConfig.from_env()) as store:
            now = await store.scores(window.since, window.until, args.assistant)
            before = await store.scores(baseline.since, baseline.until, args.assistant) if baseline else []
            return now, before

    try:
        alpha = compare_settings(None).alpha
        scores, baseline_scores = asyncio.run(read())
    except (ConfigError, StoreUnavailable, GateConfigError) as exc:
        print(f"harness eval online: {exc}", file=sys.stderr)
        return 2
    report = online_report(window, scores, baseline=baseline, baseline_scores=baseline_scores, alpha=alpha)
    if args.online_json:
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(report).decode(), indent=2) + "\n")
    else:
        sys.stdout.write(render(report))
    return 1 if report.regressed else 0


def render(report: OnlineReport) -> str:
    """The report as lines a person reads: one per assistant and scorer."""
    window = report.window
    lines = [f"online scores of the runs finished in [{window.since}, {window.until})"]
    if report.baseline is not None:
        lines.append(f"baseline: [{report.baseline.since}, {report.baseline.until}), alpha {report.alpha:g}")
    if not report.rows:
        lines.append("no scored run in the window (is HARNESS_ONLINE_EVAL_RATE above 0 on the service?)")
    for row in report.rows:
        line = f"{row.assistant:<16} {row.scorer:<11} {row.passed:>6}/{row.runs:<6} pass rate "
        line += _estimate(row.pass_rate)
        if row.baseline is not None and row.change is not None:
            p = _p_value(row.change.p_value)
            effect = "-" if row.change.effect is None else f"{row.change.effect:+.3f}"
            line += f"  baseline {_estimate(row.baseline)} (n={row.baseline.n})  change {effect} p{p}  {row.verdict}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _p_value(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.0001" if p < 0.0001 else f"={p:.4f}"


def _estimate(estimate: Estimate) -> str:
    if estimate.value is None:
        return "-"
    interval = "" if estimate.ci95 is None else f" [{estimate.ci95[0]:.3f}, {estimate.ci95[1]:.3f}]"
    return f"{estimate.value:.3f}{interval}"
