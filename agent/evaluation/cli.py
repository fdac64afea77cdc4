"""``harness eval``: run the dataset per provider, write the reports, print a summary, and gate or compare.

Exit codes: 0 done (and the gate passed, when asked), 1 the gate failed, 2 the command could not run
(a bad dataset, report, threshold table or provider configuration).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console

from agent.config import AgentConfig, ConfigError
from agent.evaluation.calibration import (
    Calibration,
    CalibrationError,
    add_calibrate_parser,
    load_calibration,
    run_calibrate_command,
)
from agent.evaluation.capture import add_capture_parser, run_capture_command
from agent.evaluation.compare_command import add_compare_parser, compare_settings, verdict_of
from agent.evaluation.console import add_format_argument, output_console, output_format
from agent.evaluation.dataset import (
    BUNDLED_DATASETS,
    DatasetError,
    load_dataset,
    load_graph_dataset,
    resolve_dataset,
)
from agent.evaluation.execution import DEFAULT_CONCURRENCY, LOCAL_CONCURRENCY, EvalPlan, run_plan
from agent.evaluation.gate import GateConfig, GateConfigError, evaluate_gate, find_pyproject, load_gate_config
from agent.evaluation.judge import JudgeSettings, Judging, judging
from agent.evaluation.model_calls import add_model_call_arguments, cache_directory, eval_model_calls, print_model_calls
from agent.evaluation.online_command import add_online_parser, run_online_command
from agent.evaluation.redteam_command import add_redteam_parser, run_redteam_command
from agent.evaluation.report import ReportError, build_report, dataset_info, load_report
from agent.evaluation.run_output import print_gate, print_summary
from agent.evaluation.statistics import DEFAULT_SEED
from agent.evaluation.writer import write_reports
from agent.graphs.registry import SUPPORT_GRAPH_ID
from agent.knowledge import load_bundled_corpus
from agent.llm.local_server import LocalServerError

__all__ = ("add_eval_parser", "run_eval_command")


def add_eval_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "eval",
        help="run the eval dataset through the agent's graph (no HTTP), write reports, optionally gate",
        description="Run every case of the dataset through a freshly opened agent and report the metrics.",
    )
    parser.add_argument(
        "--dataset",
        type=resolve_dataset,
        default=BUNDLED_DATASETS["sealed"],
        metavar="{dev,heldout,sealed,PATH}",
        help="a bundled part (dev; heldout, the regression set; sealed) or a dataset file (default: sealed)",
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
        "--config",
        type=Path,
        metavar="langgraph.json",
        help="evaluate a graph of this langgraph.json (with --graph) instead of the support agent",
    )
    parser.add_argument("--graph", metavar="ID", help="the graph id to evaluate (default: support)")
    parser.add_argument("--epochs", type=_positive_int, default=1, help="run every case this many times (default: 1)")
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"of the bootstrap intervals (default: {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted eval: keep the cases --out's results.jsonl has, run the rest",
    )
    parser.add_argument(
        "--gate", action="store_true", help="exit 1 unless every [tool.harness.gate] threshold in pyproject.toml holds"
    )
    parser.add_argument("--gate-config", type=Path, metavar="PYPROJECT", help="read the thresholds from this file")
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="a judge's saved calibration (`harness eval calibrate --out`), held to judge_min_kappa by --gate",
    )
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
    add_format_argument(parser)
    add_model_call_arguments(parser)
    eval_commands = parser.add_subparsers(dest="eval_command", metavar="{compare,capture,calibrate,redteam,online}")
    add_compare_parser(eval_commands)
    add_capture_parser(eval_commands)
    add_calibrate_parser(eval_commands)
    add_redteam_parser(eval_commands)
    add_online_parser(eval_commands)
    return parser


def run_eval_command(args: argparse.Namespace) -> int:
    console = output_console()
    errors = Console(stderr=True)
    form = output_format(args.format, console)
    if getattr(args, "eval_command", None) == "capture":
        return run_capture_command(args)
    if getattr(args, "eval_command", None) == "calibrate":
        return run_calibrate_command(args)
    if getattr(args, "eval_command", None) == "redteam":
        return run_redteam_command(args)
    if getattr(args, "eval_command", None) == "online":
        return run_online_command(args)
    try:
        if args.compare or getattr(args, "eval_command", None) == "compare":
            base, cand = (load_report(path) for path in args.compare or (args.baseline, args.candidate))
            return verdict_of(console, base, cand, compare_settings(args.gate_config), form)
        if form in ("json", "markdown"):
            raise ConfigError(
                f"--format {form} prints a comparison (`harness eval compare`, --compare); "
                "a run's own are report.json and report.md"
            )
        config = AgentConfig.from_env()
        gate = load_gate_config(args.gate_config or find_pyproject()) if args.gate or args.baseline else None
        baseline = load_report(args.baseline) if args.baseline else None
        calibration = _calibration(args, gate)
        out = args.out or config.data_dir / "eval"
        plan = _plan(args, out)
        configs = _provider_configs(config, args.providers or [config.llm.provider])
        with eval_model_calls(cache_directory(args, config.data_dir)) as calls:
            judge = JudgeSettings.from_env(provider=args.judge_provider, model=args.judge_model)
            judges = Judging(judge, config, calls)
            with judging(judges):
                runs = asyncio.run(run_plan(plan, configs, errors))
    except (ConfigError, DatasetError, GateConfigError, ReportError, LocalServerError, CalibrationError) as exc:
        errors.print(f"harness eval: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 2

    report = build_report(
        plan.dataset,
        runs,
        graph=plan.graph,
        seed=args.seed,
        config=str(plan.config_path) if plan.config_path else None,
    )
    report.cache, report.judge = calls.summary(), judges.info if judges.used else None
    files = write_reports(report, out, baseline=baseline)
    print_summary(console, report, form)
    print_model_calls(console, report.cache, report.judge)
    for path in (files.json, files.markdown, files.html, files.junit):
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)
    code = 0
    if gate is not None and args.gate:
        result = evaluate_gate(report, gate, calibration)
        print_gate(console, result, form)
        code = 0 if result.passed else 1
    if gate is not None and baseline is not None:
        code = max(code, verdict_of(console, baseline, report, gate.compare, form))
    return code


def _calibration(args: argparse.Namespace, gate: GateConfig | None) -> Calibration | None:
    """``--calibration``'s file; an error where nothing would read it, never a flag silently ignored."""
    path: Path | None = getattr(args, "calibration", None)
    if path is None:
        return None
    if gate is None or not args.gate:
        raise ConfigError("--calibration is read by --gate")
    if gate.judge_min_kappa is None:
        raise ConfigError("--calibration needs judge_min_kappa in [tool.harness.gate], the kappa to hold it to")
    return load_calibration(path)


def _provider_configs(config: AgentConfig, providers: list[str]) -> list[AgentConfig]:
    duplicates = sorted({name for name in providers if providers.count(name) > 1})
    if duplicates:
        raise ConfigError(f"--provider {duplicates[0]} is given more than once")
    return [
        msgspec.structs.replace(config, llm=msgspec.structs.replace(config.llm, provider=name)) for name in providers
    ]


def _plan(args: argparse.Namespace, out: Path) -> EvalPlan:
    """What ``args`` ask to run, the dataset loaded and validated whole before anything runs."""
    if args.config is None:
        if args.graph not in (None, SUPPORT_GRAPH_ID):
            raise ConfigError(f"--graph {args.graph} needs --config (the langgraph.json that names it)")
        cases = load_dataset(args.dataset, known_doc_ids={doc.doc_id for doc in load_bundled_corpus()})
        info = dataset_info(args.dataset, len(cases))
        return EvalPlan(graph=SUPPORT_GRAPH_ID, dataset=info, out=out, support_cases=cases, **_common(args))
    if args.graph is None:
        raise ConfigError("--config needs --graph (the id of the graph to evaluate)")
    if args.dataset in BUNDLED_DATASETS.values():
        raise ConfigError("--graph needs its own --dataset (the bundled ones are the support agent's)")
    graph_cases = load_graph_dataset(args.dataset)
    info = dataset_info(args.dataset, len(graph_cases))
    return EvalPlan(
        graph=args.graph, dataset=info, out=out, graph_cases=graph_cases, config_path=args.config, **_common(args)
    )


def _common(args: argparse.Namespace) -> dict[str, Any]:
    return {"epochs": args.epochs, "concurrency": args.concurrency, "resume": args.resume}


def _positive_int(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {raw!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
