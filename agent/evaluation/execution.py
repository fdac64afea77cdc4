"""One ``harness eval`` pass per provider over the support agent or another registered graph, with epochs,
a progress display, and every finished case appended to ``results.jsonl`` so ``--resume`` can finish it.

``results.jsonl`` starts with a header naming the dataset (its hash), the graph, the epochs and, when the stub
samples, its temperature and base seed; each line after it is one case and epoch of one provider. ``--resume``
reads it back, refuses one written for another dataset, graph, epochs or sampling, draws the rest of the cases
from the same base seed, and runs only what is missing; without ``--resume`` the file starts over.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from agent.evaluation.dataset import DatasetError
from agent.evaluation.graph_runner import EVENTS_DIR, run_graph_dataset
from agent.evaluation.progress import EvalProgress
from agent.evaluation.records import GraphRecord
from agent.evaluation.results import CaseResult, StubSampling
from agent.evaluation.runner import check_provider, run_dataset, stub_sampling
from agent.llm.local_autostart import serving_local_model
from agent.stores.private_files import private_directory

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rich.console import Console

    from agent.config import AgentConfig
    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.report import DatasetInfo
    from agent.evaluation.results import EvalRun

__all__ = ("RESULTS_FILE", "EvalPlan", "ResultsFile", "run_plan")

RESULTS_FILE = "results.jsonl"
DEFAULT_CONCURRENCY = 8
LOCAL_CONCURRENCY = 1
"""The bundled llama.cpp server answers one request at a time; more would only queue into timeouts."""


@dataclass(kw_only=True)
class EvalPlan:
    """What to run: the graph, its cases, the providers, epochs and where the results go."""

    graph: str
    dataset: DatasetInfo
    out: Path
    support_cases: list[GraphCase] = field(default_factory=list)
    graph_cases: list[GraphCase] = field(default_factory=list)
    config_path: Path | None = None
    """The ``langgraph.json`` of a graph other than the support agent."""
    epochs: int = 1
    concurrency: int | None = None
    resume: bool = False


class _Header(msgspec.Struct, kw_only=True, tag="header"):
    dataset_sha256: str
    graph: str
    epochs: int
    sampling: StubSampling | None = None
    """How the stub sampled (its base seed): a resumed run draws its remaining cases from the same seed."""


class _Finished(msgspec.Struct, kw_only=True, tag="case"):
    provider: str
    support: CaseResult | None = None
    graph: GraphRecord | None = None


class ResultsFile:
    """``results.jsonl`` in ``--out``: what finished so far, appended case by case."""

    def __init__(self, out: Path, plan_header: _Header) -> None:
        self.path = out / RESULTS_FILE
        self._header = plan_header

    @staticmethod
    def stored_header(out: Path) -> _Header | None:
        """The header of the results an interrupted run left in ``out``, if any."""
        path = out / RESULTS_FILE
        if not path.exists():
            return None
        first = next((line for line in path.read_bytes().splitlines() if line.strip()), b"")
        try:
            entry = msgspec.json.decode(first, type=_Header | _Finished)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        return entry if isinstance(entry, _Header) else None

    def read(self) -> list[_Finished]:
        """What an interrupted run finished; ``DatasetError`` when it ran something else."""
        if not self.path.exists():
            return []
        lines = [line for line in self.path.read_bytes().splitlines() if line.strip()]
        decoder = msgspec.json.Decoder(_Header | _Finished)
        try:
            entries = [decoder.decode(line) for line in lines]
        except (msgspec.ValidationError, msgspec.DecodeError):
            # the last line may have been cut by the interruption: keep every whole one
            entries = []
            for line in lines:
                try:
                    entries.append(decoder.decode(line))
                except (msgspec.ValidationError, msgspec.DecodeError):
                    continue
        if not entries or not isinstance(entries[0], _Header):
            return []
        header = entries[0]
        if header != self._header:
            sampled = "" if header.sampling is None else f", the stub sampling at {header.sampling.temperature:g}"
            raise DatasetError(
                f"{self.path} holds a run of graph {header.graph!r} over another dataset, with "
                f"{header.epochs} epoch(s) or another sampling{sampled}: it cannot be resumed as this one (drop "
                "--resume to start over)"
            )
        return [entry for entry in entries[1:] if isinstance(entry, _Finished)]

    def start(self, *, keep: bool) -> None:
        private_directory(self.path.parent)
        if keep and self.path.exists():
            return
        self.path.write_bytes(msgspec.json.encode(self._header) + b"\n")
        self.path.chmod(0o600)

    def append(self, provider: str, result: CaseResult | GraphRecord) -> None:
        entry = (
            _Finished(provider=provider, support=result)
            if isinstance(result, CaseResult)
            else _Finished(provider=provider, graph=result)
        )
        with self.path.open("ab") as file:
            file.write(msgspec.json.encode(entry) + b"\n")


async def run_plan(plan: EvalPlan, configs: Sequence[AgentConfig], console: Console) -> list[EvalRun]:
    """One pass per provider, one after the other, so their latencies do not disturb each other.

    Every provider is checked before the first pass starts: a typo in the last ``--provider`` should not
    cost the time of the passes before it. A ``local`` pass starts the bundled model's server for itself
    (as ``harness serve --provider local`` does) unless a base URL names one, and stops it afterwards.
    """
    for config in configs:
        await check_provider(config)
    stored = ResultsFile.stored_header(plan.out) if plan.resume else None
    configs = [_seeded(config, stored.sampling if stored is not None else None) for config in configs]
    sampling = next((found for config in configs if (found := stub_sampling(config)) is not None), None)
    header = _Header(dataset_sha256=plan.dataset.sha256, graph=plan.graph, epochs=plan.epochs, sampling=sampling)
    results = ResultsFile(plan.out, header)
    finished = results.read() if plan.resume else []
    results.start(keep=plan.resume)
    runs: list[EvalRun] = []
    total = len(plan.support_cases or plan.graph_cases) * plan.epochs
    for config in configs:
        provider = config.llm.provider
        done_support = [f.support for f in finished if f.provider == provider and f.support is not None]
        done_graph = [f.graph for f in finished if f.provider == provider and f.graph is not None]
        concurrency = plan.concurrency or _default_concurrency(config)
        with EvalProgress(console, total, provider, already=len(done_support) + len(done_graph)) as progress:

            def finished_one(result: Any, provider: str = provider, progress: EvalProgress = progress) -> None:
                results.append(provider, result)
                progress.advance(result.id, result.epoch, result.passed)

            if plan.config_path is not None:
                runs.append(
                    await run_graph_dataset(
                        plan.graph_cases,
                        config_path=plan.config_path,
                        graph_id=plan.graph,
                        provider=provider,
                        events_dir=plan.out / EVENTS_DIR,
                        concurrency=concurrency,
                        epochs=plan.epochs,
                        done=done_graph,
                        on_case_done=finished_one,
                    )
                )
                continue
            async with serving_local_model(config) as served:
                runs.append(
                    await run_dataset(
                        plan.support_cases,
                        served,
                        concurrency=concurrency,
                        epochs=plan.epochs,
                        events_dir=plan.out / EVENTS_DIR,
                        done=done_support,
                        on_case_done=finished_one,
                    )
                )
    return runs


def _seeded(config: AgentConfig, stored: StubSampling | None) -> AgentConfig:
    """``config`` with the stub's base seed fixed when it samples with none set: the seed of the run being
    resumed when it sampled at the same temperature, else one drawn now (and recorded in the header)."""
    stub = config.stub
    if stub.seed is not None or stub_sampling(config) is None:
        return config
    same = stored is not None and stored.temperature == stub.temperature
    seed = stored.seed if same and stored is not None else secrets.randbits(32)
    return msgspec.structs.replace(config, stub=msgspec.structs.replace(stub, seed=seed))


def _default_concurrency(config: AgentConfig) -> int:
    return LOCAL_CONCURRENCY if "local" in config.llm.providers else DEFAULT_CONCURRENCY
