"""``report.json``: the machine-readable result of an eval, a versioned schema of msgspec Structs.

Within one ``schema_version`` fields are only ever added; removing or changing one raises the version, and
``load_report`` refuses a version it does not know rather than misreading it.
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.clock import format_timestamp
from agent.errors import AgentError
from agent.evaluation.judge import JudgeInfo
from agent.evaluation.metrics import Metrics, compute_metrics
from agent.evaluation.model_calls import CacheSummary
from agent.evaluation.pass_k import PassK, pass_k_summary
from agent.evaluation.records import GraphRecord
from agent.evaluation.results import CaseResult, StubSampling
from agent.evaluation.statistics import DEFAULT_RESAMPLES, DEFAULT_SEED, Estimate
from agent.evaluation.summary import CaseScores, graph_summary, support_summary

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.results import EvalRun

__all__ = (
    "REPORT_SCHEMA_VERSION",
    "DatasetInfo",
    "ProviderReport",
    "Report",
    "ReportError",
    "RunInfo",
    "build_report",
    "dataset_info",
    "encode_report",
    "load_report",
)

REPORT_SCHEMA_VERSION = 2
"""2: ``run``, ``cases`` (per epoch scores) and ``metrics`` (estimates with ``stderr`` and ``ci95``) at the top,
and a graph's ``records``; 1 had only ``runs``."""


class ReportError(AgentError, ValueError):
    """A report file that cannot be read as this schema; the message names the file."""


class DatasetInfo(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    """The file's stem, e.g. ``support-v1``: the dataset's version is in its name."""
    path: str
    sha256: str
    """Of the file's bytes: two reports are comparable case for case only when these match."""
    cases: int


class ProviderReport(msgspec.Struct, kw_only=True):
    """One provider's results; a report holds one per ``--provider``, side by side."""

    provider: str
    model: str | None
    started_at: str
    duration_s: float
    concurrency: int
    metrics: Metrics
    """The support agent's metrics over every case and epoch (all empty for another graph's run)."""
    cases: list[CaseResult]
    """The support agent's cases, one per epoch (empty for another graph's run)."""
    epochs: int = 1
    estimates: dict[str, Estimate] = msgspec.field(default_factory=dict)
    """Every metric with its standard error and 95% interval, by name."""
    case_scores: list[CaseScores] = msgspec.field(default_factory=list)
    """Every case over its epochs."""
    records: list[GraphRecord] = msgspec.field(default_factory=list)
    """Another graph's cases, one per epoch: trajectory, tool calls, interrupts, checks."""
    sampling: StubSampling | None = None
    """The stub's temperature and base seed when it sampled (``HARNESS_STUB_TEMPERATURE`` above 0)."""
    pass_k: PassK | None = None
    """pass@k and pass^k over the epochs for every k, with intervals, and the flaky cases."""


class RunInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What ran: enough to reproduce it."""

    graph: str
    """The registered graph's id (``support`` for the support agent)."""
    dataset: str
    """The dataset's name (its file's stem); ``report.dataset`` has its path and hash."""
    provider: str
    model: str | None
    epochs: int
    seed: int
    """Of the bootstrap's draws."""
    resamples: int
    git_commit: str | None
    """The working tree's commit, when it is a git checkout."""
    config: str | None = None
    """The ``langgraph.json`` the graph was loaded from."""


class Report(msgspec.Struct, kw_only=True):
    schema_version: int
    generated_at: str
    run: RunInfo
    """The first provider's run, the one ``cases`` and ``metrics`` describe."""
    cases: list[CaseScores]
    metrics: dict[str, Estimate]
    dataset: DatasetInfo
    runs: list[ProviderReport]
    cache: CacheSummary | None = None
    """The model-call cache: off, or its hits and the tokens they saved (``--cache``)."""
    judge: JudgeInfo | None = None
    """The LLM judge that graded ``expect.judge``: provider, model, prompt version and its SHA-256."""
    pass_k: PassK | None = None
    """The first provider's pass@k and pass^k for every k and its flaky cases (``runs[].pass_k``)."""


def dataset_info(path: Path, cases: int) -> DatasetInfo:
    return DatasetInfo(
        name=path.stem, path=str(path), sha256=hashlib.sha256(path.read_bytes()).hexdigest(), cases=cases
    )


def build_report(
    dataset: DatasetInfo,
    runs: Sequence[EvalRun],
    *,
    graph: str = "support",
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    config: str | None = None,
) -> Report:
    providers = [_provider_report(run, seed=seed, resamples=resamples) for run in runs]
    first = providers[0]
    return Report(
        schema_version=REPORT_SCHEMA_VERSION,
        generated_at=format_timestamp(time.time_ns()),
        run=RunInfo(
            graph=graph,
            dataset=dataset.name,
            provider=first.provider,
            model=first.model,
            epochs=first.epochs,
            seed=seed,
            resamples=resamples,
            git_commit=git_commit(),
            config=config,
        ),
        cases=first.case_scores,
        metrics=first.estimates,
        dataset=dataset,
        runs=providers,
        pass_k=first.pass_k,
    )


def _provider_report(run: EvalRun, *, seed: int, resamples: int) -> ProviderReport:
    if run.records:
        case_scores, estimates = graph_summary(run.records, resamples=resamples, seed=seed)
    else:
        case_scores, estimates = support_summary(run.cases, k=run.retrieval_k, resamples=resamples, seed=seed)
    return ProviderReport(
        provider=run.provider,
        model=run.model,
        started_at=run.started_at,
        duration_s=run.duration_s,
        concurrency=run.concurrency,
        metrics=compute_metrics(run.cases, k=run.retrieval_k),
        cases=run.cases,
        epochs=run.epochs,
        estimates=estimates,
        case_scores=case_scores,
        records=run.records,
        sampling=run.sampling,
        pass_k=pass_k_summary(case_scores, resamples=resamples, seed=seed),
    )


def git_commit() -> str | None:
    """The commit of the checkout this code runs from, or ``None`` outside one (an installed wheel)."""
    root = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def encode_report(report: Report) -> bytes:
    """Indented JSON with fields in schema order, so two reports diff line by line."""
    return msgspec.json.format(msgspec.json.encode(report), indent=2) + b"\n"


def load_report(path: Path) -> Report:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReportError(f"cannot read the report {path}: {exc.strerror or exc}") from None
    try:
        version = msgspec.json.decode(raw, type=_Versioned).schema_version
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ReportError(f"{path} is not an eval report: {exc}") from None
    if version != REPORT_SCHEMA_VERSION:
        raise ReportError(f"{path} has report schema_version {version}; this harness reads {REPORT_SCHEMA_VERSION}")
    try:
        return msgspec.json.decode(raw, type=Report)
    except msgspec.ValidationError as exc:
        raise ReportError(f"{path} does not match report schema {REPORT_SCHEMA_VERSION}: {exc}") from None


class _Versioned(msgspec.Struct):
    schema_version: int
