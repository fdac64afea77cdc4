"""``report.json``: the machine-readable result of an eval, a versioned schema of msgspec Structs.

Within one ``schema_version`` fields are only ever added; removing or changing one raises the version, and
``load_report`` refuses a version it does not know rather than misreading it.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING

import msgspec

from agent.clock import format_timestamp
from agent.errors import AgentError
from agent.evaluation.metrics import Metrics, compute_metrics
from agent.evaluation.results import CaseResult

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from agent.evaluation.runner import EvalRun

__all__ = (
    "REPORT_SCHEMA_VERSION",
    "DatasetInfo",
    "ProviderReport",
    "Report",
    "ReportError",
    "build_report",
    "dataset_info",
    "encode_report",
    "load_report",
)

REPORT_SCHEMA_VERSION = 1


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
    cases: list[CaseResult]


class Report(msgspec.Struct, kw_only=True):
    schema_version: int
    generated_at: str
    dataset: DatasetInfo
    runs: list[ProviderReport]


def dataset_info(path: Path, cases: int) -> DatasetInfo:
    return DatasetInfo(
        name=path.stem, path=str(path), sha256=hashlib.sha256(path.read_bytes()).hexdigest(), cases=cases
    )


def build_report(dataset: DatasetInfo, runs: Sequence[EvalRun]) -> Report:
    return Report(
        schema_version=REPORT_SCHEMA_VERSION,
        generated_at=format_timestamp(time.time_ns()),
        dataset=dataset,
        runs=[
            ProviderReport(
                provider=run.provider,
                model=run.model,
                started_at=run.started_at,
                duration_s=run.duration_s,
                concurrency=run.concurrency,
                metrics=compute_metrics(run.cases, k=run.retrieval_k),
                cases=run.cases,
            )
            for run in runs
        ],
    )


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
