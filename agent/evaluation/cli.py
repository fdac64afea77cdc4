"""``harness eval``: run the dataset per provider, write the reports, print a summary, and gate or compare.

Exit codes: 0 done (and the gate passed, when asked), 1 the gate failed, 2 the command could not run
(a bad dataset, report, threshold table or provider configuration).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from agent.config import AgentConfig, ConfigError
from agent.evaluation.compare_command import add_compare_parser, compare_settings, verdict_of
from agent.evaluation.dataset import BUNDLED_DATASETS, DatasetError, load_dataset, resolve_dataset
from agent.evaluation.formatting import SUMMARY_METRICS, format_metric
from agent.evaluation.gate import GateConfigError, evaluate_gate, find_pyproject, load_gate_config
from agent.evaluation.headline import headline
from agent.evaluation.report import ReportError, build_report, dataset_info, load_report
from agent.evaluation.runner import check_provider, run_dataset
from agent.evaluation.writer import write_reports
from agent.knowledge import load_bundled_corpus
from agent.llm.local_autostart import serving_local_model
from agent.llm.local_server import LocalServerError

if TYPE_CHECKING:
    from agent.evaluation.dataset import Case
    from agent.evaluation.gate import GateResult
    from agent.evaluation.report import Report
    from agent.evaluation.results import CaseResult
    from agent.evaluation.runner import EvalRun

__all__ = ("add_eval_parser", "run_eval_command")

DEFAULT_CONCURRENCY = 8
LOCAL_CONCURRENCY = 1
"""The bundled llama.cpp server answers one request at a time; more would only queue into timeouts."""


def add_eval_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "eval",
        help="run the eval dataset through the agent's graph (no HTTP), write reports, optionally gate",
        description="Run every case of the dataset through a freshly opened agent and report the metrics.",
    )
    parser.add_argument(
        "--dataset",
        type=resolve_dataset,
        default=BUNDLED_DATASETS["heldout"],
        metavar="{dev,heldout,PATH}",
        help="a bundled part (dev, heldout) or a JSONL file (default: heldout, what the gate reads)",
    )
    parser.add_argument(
        "--provider",
        action="append",
        dest="providers",
        metavar="NAME",
        help="model provider (repeat to compare providers side by side; default: HARNESS_LLM_PROVIDER)",
    )
    parser.add_argument(
        "--concurrency",
        type=_positive_int,
        help=f"cases run at once (default: {DEFAULT_CONCURRENCY}; {LOCAL_CONCURRENCY} for the local model)",
    )
    parser.add_argument("--out", type=Path, help="where the reports go (default: $HARNESS_DATA_DIR/eval)")
    parser.add_argument(
        "--gate", action="store_true", help="exit 1 unless every [tool.harness.gate] threshold in pyproject.toml holds"
    )
    parser.add_argument("--gate-config", type=Path, metavar="PYPROJECT", help="read the thresholds from this file")
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("BASE.json", "CAND.json"),
        help="the same as `harness eval compare BASE.json CAND.json`",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="BASE.json",
        help="after the run, compare it with this report (as `harness eval compare`); exit 1 on a blocking regression",
    )
    add_compare_parser(parser.add_subparsers(dest="eval_command", metavar="compare"))
    return parser


def run_eval_command(args: argparse.Namespace) -> int:
    console = Console()
    errors = Console(stderr=True)
    try:
        if args.compare or getattr(args, "eval_command", None) == "compare":
            base, cand = (load_report(path) for path in args.compare or (args.baseline, args.candidate))
            return verdict_of(console, base, cand, compare_settings(args.gate_config))
        config = AgentConfig.from_env()
        gate = load_gate_config(args.gate_config or find_pyproject()) if args.gate or args.baseline else None
        baseline = load_report(args.baseline) if args.baseline else None
        cases = load_dataset(args.dataset, known_doc_ids={doc.doc_id for doc in load_bundled_corpus()})
        configs = _provider_configs(config, args.providers or [config.llm.provider])
        runs = asyncio.run(_run_providers(cases, configs, args.concurrency, errors))
    except (ConfigError, DatasetError, GateConfigError, ReportError, LocalServerError) as exc:
        errors.print(f"harness eval: {exc}", markup=False, highlight=False)
        return 2

    report = build_report(dataset_info(args.dataset, len(cases)), runs)
    files = write_reports(report, args.out or config.data_dir / "eval")
    _print_summary(console, report)
    for path in (files.json, files.markdown, files.html):
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)
    code = 0
    if gate is not None and args.gate:
        result = evaluate_gate(report, gate)
        _print_gate(console, result)
        code = 0 if result.passed else 1
    if gate is not None and baseline is not None:
        code = max(code, verdict_of(console, baseline, report, gate.compare))
    return code


def _provider_configs(config: AgentConfig, providers: list[str]) -> list[AgentConfig]:
    duplicates = sorted({name for name in providers if providers.count(name) > 1})
    if duplicates:
        raise ConfigError(f"--provider {duplicates[0]} is given more than once")
    return [
        msgspec.structs.replace(config, llm=msgspec.structs.replace(config.llm, provider=name)) for name in providers
    ]


async def _run_providers(
    cases: list[Case], configs: list[AgentConfig], concurrency: int | None, console: Console
) -> list[EvalRun]:
    """One pass per provider, one after the other, so their latencies do not disturb each other.

    Every provider is checked before the first pass starts: a typo in the last ``--provider`` should not
    cost the time of the passes before it. A ``local`` pass starts the bundled model's server for itself
    (as ``harness serve --provider local`` does) unless a base URL names one, and stops it afterwards.
    """
    for config in configs:
        await check_provider(config)
    runs: list[EvalRun] = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[red]{task.fields[failed]} failing"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        for config in configs:
            task = progress.add_task(config.llm.provider, total=len(cases), failed=0)
            failed = 0

            def advance(result: CaseResult, task: TaskID = task) -> None:
                nonlocal failed
                failed += 0 if result.passed else 1
                progress.update(task, advance=1, failed=failed)

            pass_concurrency = concurrency or _default_concurrency(config)
            async with serving_local_model(config) as served:
                runs.append(await run_dataset(cases, served, concurrency=pass_concurrency, on_case_done=advance))
    return runs


def _default_concurrency(config: AgentConfig) -> int:
    return LOCAL_CONCURRENCY if "local" in config.llm.providers else DEFAULT_CONCURRENCY


def _print_summary(console: Console, report: Report) -> None:
    table = Table(title=f"eval: {report.dataset.name} ({report.dataset.cases} cases)")
    table.add_column("metric", no_wrap=True)
    for run in report.runs:
        table.add_column(f"{run.provider}\n{run.model or ''}", justify="right")
    values = [headline(run.metrics) for run in report.runs]
    for metric in SUMMARY_METRICS:
        table.add_row(metric, *(format_metric(metric, v[metric]) for v in values))
    table.add_row("wall time", *(f"{run.duration_s:.2f} s" for run in report.runs), end_section=True)
    console.print(table)


def _print_gate(console: Console, result: GateResult) -> None:
    failures = result.failures
    if not failures:
        console.print(f"[green]gate passed[/]: {len(result.checks)} thresholds hold")
        return
    table = Table(title=f"gate failed: {len(failures)} of {len(result.checks)} thresholds fell short")
    table.add_column("provider")
    table.add_column("metric", no_wrap=True)
    table.add_column("threshold", justify="right")
    table.add_column("actual", justify="right")
    for check in failures:
        symbol = "≥" if check.bound == "min" else "≤"
        table.add_row(
            check.provider,
            check.metric,
            f"{symbol} {format_metric(check.metric, check.threshold)}",
            "[red]" + (format_metric(check.metric, check.actual) if check.actual is not None else "not measured"),
        )
    console.print(table)


def _positive_int(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {raw!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
