"""Running the support agent's dataset in-process, never over HTTP, so the eval measures the agent.

The support agent is evaluated as the registered graph ``support``, by the graph runner every graph goes
through (``run_graph_case``: the ``GraphStream`` a run of the service uses, an event log per case and
epoch), on an agent freshly opened for each case and epoch: its own data directory (checkpoints and ledger),
so a refund or a deletion of one case cannot reach another, and the order or concurrency of the run changes
nothing but the wall time. What a case sends is admitted as the service admits a run's input
(``agent.evaluation.support_admission``); its turns are read from the state at each stop
(``agent.evaluation.support_results``).

A stub that samples (``HARNESS_STUB_TEMPERATURE`` above 0) gets a seed of its own for each case and epoch,
derived from the base seed (``HARNESS_STUB_SEED``, or one drawn for the pass and recorded in the report):
epochs are independent samples, and the same base seed gives the same answers whatever the concurrency.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.clock import format_timestamp
from agent.evaluation._epochs import run_epochs
from agent.evaluation.case_trace import CaseTrace
from agent.evaluation.graph_runner import case_thread_id, run_graph_case
from agent.evaluation.records import GraphRecord
from agent.evaluation.results import EvalRun, StubSampling
from agent.evaluation.support_admission import SupportAdmission, support_graph
from agent.evaluation.support_results import support_result
from agent.llm.factory import create_llm_client
from agent.llm.stub import derive_seed
from agent.runtime import open_agent

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent.config import AgentConfig
    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.results import CaseResult

__all__ = ("case_config", "check_provider", "run_case", "run_dataset", "stub_sampling")


async def run_dataset(
    cases: Sequence[GraphCase],
    config: AgentConfig,
    *,
    concurrency: int = 8,
    epochs: int = 1,
    events_dir: Path | None = None,
    done: Sequence[CaseResult] = (),
    on_case_done: Callable[[CaseResult], None] | None = None,
) -> EvalRun:
    """Every case ``epochs`` times through the graph, at most ``concurrency`` at a time; results in dataset
    order, epochs in order, event logs in ``events_dir``. ``done``: results of an interrupted run
    (``--resume``), not run again.

    The model client is created once up front so that a provider that cannot be configured fails the run
    at once (``ConfigError``) instead of turning every case into an error.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}")
    await check_provider(config)
    sampling = stub_sampling(config)
    started_ns, started = time.time_ns(), time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="harness-eval-") as root:

        async def one(case: GraphCase, epoch: int) -> CaseResult:
            own = case_config(config, Path(root) / case.id / str(epoch), case.id, epoch, sampling)
            return await run_case(case, own, epoch=epoch, events_dir=events_dir)

        results = await run_epochs(
            cases, one, epochs=epochs, concurrency=concurrency, done=done, on_case_done=on_case_done
        )

    model = next((t.model for r in results for t in r.turns if t.model), None)
    return EvalRun(
        provider=config.llm.provider,
        model=model,
        started_at=format_timestamp(started_ns),
        duration_s=round(time.perf_counter() - started, 3),
        concurrency=concurrency,
        retrieval_k=config.retrieval_k,
        cases=results,
        epochs=epochs,
        sampling=sampling,
    )


def stub_sampling(config: AgentConfig) -> StubSampling | None:
    """The pass's sampling when its stub samples: the temperature and the base seed (the configured one, or
    one drawn now, so the report can say what to set to get the same answers again)."""
    stub = config.stub
    if stub.temperature == 0 or "stub" not in config.llm.providers:
        return None
    seed = stub.seed if stub.seed is not None else secrets.randbits(32)
    return StubSampling(temperature=stub.temperature, seed=seed)


def case_config(
    config: AgentConfig, data_dir: Path, case_id: str, epoch: int, sampling: StubSampling | None
) -> AgentConfig:
    """The configuration of one case and epoch: its own data directory and, when the stub samples, its own
    seed, a hash of the base seed, the case id and the epoch."""
    if sampling is None:
        return msgspec.structs.replace(config, data_dir=data_dir)
    stub = msgspec.structs.replace(config.stub, seed=derive_seed(sampling.seed, case_id, epoch))
    return msgspec.structs.replace(config, data_dir=data_dir, stub=stub)


async def run_case(
    case: GraphCase, config: AgentConfig, *, epoch: int = 1, events_dir: Path | None = None
) -> CaseResult:
    """The case's sends, in order, on one thread of an agent opened on ``config.data_dir``."""
    telemetry = CaseTrace(config, epoch=epoch)  # its spans, OTLP export, model client (cache), scores as events
    record: GraphRecord | None = None
    try:
        async with telemetry, open_agent(config, **telemetry.agent_options()) as agent:
            admission = SupportAdmission(agent, case_thread_id(case.id, epoch))
            record = await run_graph_case(
                case,
                support_graph(agent),
                epoch=epoch,
                events_dir=events_dir,
                admission=admission,
                telemetry=telemetry,
            )
    except Exception as exc:  # the agent did not open (no turn ran) or did not close (the turns stand)
        if record is None:
            record = GraphRecord(id=case.id, epoch=epoch, status="error", error=f"{type(exc).__name__}: {exc}")
    result = support_result(case, record)
    await telemetry.close(result)
    return result


async def check_provider(config: AgentConfig) -> None:
    """Raise the factory's ``ConfigError`` now rather than once per case; close the probe client if it can be."""
    client = create_llm_client(config)
    close = getattr(client, "aclose", None)
    if callable(close):
        await close()
