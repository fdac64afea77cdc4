"""The eval harness: a versioned dataset run in-process through the support agent or any registered graph, metrics
with intervals, reports and a gate.

``harness eval`` (``agent.evaluation.cli``) is the way in; the pieces are public for tests and notebooks.
"""

from __future__ import annotations

from agent.evaluation.capture import CapturedRun, CaptureError, RunSource, capture_runs
from agent.evaluation.cli import add_eval_parser, run_eval_command
from agent.evaluation.compare import Comparison, compare
from agent.evaluation.dataset import (
    BUNDLED_DATASETS,
    DEV_DATASET,
    HELDOUT_DATASET,
    SEALED_DATASET,
    DatasetError,
    load_dataset,
    load_graph_dataset,
    resolve_dataset,
)
from agent.evaluation.gate import GateConfigError, GateResult, evaluate_gate, find_pyproject, load_thresholds
from agent.evaluation.graph_cases import GraphCase
from agent.evaluation.graph_runner import run_graph_dataset
from agent.evaluation.headline import HEADLINE_METRICS, headline
from agent.evaluation.judge import JudgeSettings, create_judge
from agent.evaluation.metrics import Metrics, compute_metrics
from agent.evaluation.online import ONLINE_SCORERS, Grader, OnlineScore, OnlineScoring, sampled, score_run
from agent.evaluation.online_store import OnlineScoreStore, open_online_scores
from agent.evaluation.records import Check, GraphRecord
from agent.evaluation.report import REPORT_SCHEMA_VERSION, Report, ReportError, build_report, load_report
from agent.evaluation.results import CaseResult, EvalRun, TurnResult
from agent.evaluation.runner import run_case, run_dataset
from agent.evaluation.scorers import register_scorer
from agent.evaluation.statistics import Estimate
from agent.evaluation.support_cases import TurnExpect
from agent.evaluation.writer import ReportFiles, write_reports

__all__ = (
    "BUNDLED_DATASETS",
    "DEV_DATASET",
    "HEADLINE_METRICS",
    "HELDOUT_DATASET",
    "ONLINE_SCORERS",
    "REPORT_SCHEMA_VERSION",
    "SEALED_DATASET",
    "CaptureError",
    "CapturedRun",
    "CaseResult",
    "Check",
    "Comparison",
    "DatasetError",
    "Estimate",
    "EvalRun",
    "GateConfigError",
    "GateResult",
    "Grader",
    "GraphCase",
    "GraphRecord",
    "JudgeSettings",
    "Metrics",
    "OnlineScore",
    "OnlineScoreStore",
    "OnlineScoring",
    "Report",
    "ReportError",
    "ReportFiles",
    "RunSource",
    "TurnExpect",
    "TurnResult",
    "add_eval_parser",
    "build_report",
    "capture_runs",
    "compare",
    "compute_metrics",
    "create_judge",
    "evaluate_gate",
    "find_pyproject",
    "headline",
    "load_dataset",
    "load_graph_dataset",
    "load_report",
    "load_thresholds",
    "open_online_scores",
    "register_scorer",
    "resolve_dataset",
    "run_case",
    "run_dataset",
    "run_eval_command",
    "run_graph_dataset",
    "sampled",
    "score_run",
    "write_reports",
)
