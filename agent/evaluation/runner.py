"""Running the dataset through the agent's graph, in-process: never over HTTP, so the eval measures the agent.

Every case gets a freshly opened agent on its own data directory (its own checkpoints and ledger) and its
own session, so cases cannot see each other and the order or concurrency of the run changes nothing.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from agent.clock import format_timestamp
from agent.evaluation.case_trace import CaseTrace
from agent.evaluation.checks import turn_failures
from agent.evaluation.records import GraphRecord
from agent.evaluation.results import CaseResult, ProposedAction, TurnResult
from agent.evaluation.spans import read_turn_spans
from agent.llm.factory import create_llm_client
from agent.runtime import open_agent
from agent.turns import resume_turn, run_turn, thread_config

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agent.config import AgentConfig
    from agent.evaluation.dataset import Case, Turn
    from agent.runtime import Agent
    from contracts import ChatResponse

__all__ = ("EvalRun", "check_provider", "run_case", "run_dataset")


class EvalRun(msgspec.Struct, kw_only=True):
    """One provider's pass over the dataset."""

    provider: str
    model: str | None
    """The model the responses name (the first one seen)."""
    started_at: str
    duration_s: float
    """Wall time of the whole pass (how long the eval took, not a metric of the agent)."""
    concurrency: int
    retrieval_k: int
    cases: list[CaseResult]
    """The support agent's results, one per case and epoch, in dataset order."""
    epochs: int = 1
    records: list[GraphRecord] = msgspec.field(default_factory=list)
    """Another graph's results (``agent.evaluation.graph_runner``), one per case and epoch."""


async def run_dataset(
    cases: Sequence[Case],
    config: AgentConfig,
    *,
    concurrency: int = 8,
    epochs: int = 1,
    done: Sequence[CaseResult] = (),
    on_case_done: Callable[[CaseResult], None] | None = None,
) -> EvalRun:
    """Every case ``epochs`` times through the graph, at most ``concurrency`` at a time; results in dataset
    order, epochs in order. ``done``: results of an interrupted run (``--resume``), not run again.

    The model client is created once up front so that a provider that cannot be configured fails the run
    at once (``ConfigError``) instead of turning every case into an error.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}")
    await check_provider(config)
    gate = asyncio.Semaphore(concurrency)
    started_ns, started = time.time_ns(), time.perf_counter()
    finished = {(r.id, r.epoch): r for r in done}
    order = {case.id: index for index, case in enumerate(cases)}

    with tempfile.TemporaryDirectory(prefix="harness-eval-") as root:

        async def one(case: Case, epoch: int) -> CaseResult:
            async with gate:
                case_config = msgspec.structs.replace(config, data_dir=Path(root) / case.id / str(epoch))
                result = await run_case(case, case_config, epoch=epoch)
            if on_case_done is not None:
                on_case_done(result)
            return result

        todo = [(c, e) for c in cases for e in range(1, epochs + 1) if (c.id, e) not in finished]
        fresh = await asyncio.gather(*(one(case, epoch) for case, epoch in todo))
    kept = [r for key, r in finished.items() if key[0] in order and key[1] <= epochs]
    results = sorted([*kept, *fresh], key=lambda r: (order[r.id], r.epoch))

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
    )


async def run_case(case: Case, config: AgentConfig, *, epoch: int = 1) -> CaseResult:
    """The case's turns, in order, in one session of an agent opened on ``config.data_dir``."""
    telemetry = CaseTrace(config, epoch=epoch)  # its spans, OTLP export, model client (cache), scores as events
    exporter = telemetry.exporter
    turns: list[TurnResult] = []
    try:
        async with telemetry, open_agent(config, **telemetry.agent_options()) as agent:
            previous: ChatResponse | None = None
            for index, turn in enumerate(case.turns, start=1):
                if turns and turns[-1].status in ("error", "skipped"):
                    result, previous = _not_run(index, turn, "skipped", "an earlier turn of the case failed"), None
                else:
                    result, previous = await _run_turn(agent, case.id, index, turn, previous)
                    _observe_spans(result, exporter)
                    if result.status == "paused":
                        result.action = await _proposed_action(agent, f"eval-{case.id}")
                turns.append(result)
    except Exception as exc:  # opening the agent or reading its state failed: the turns not yet run are errors
        message = f"{type(exc).__name__}: {exc}"
        turns += [_not_run(i, t, "error", message) for i, t in enumerate(case.turns, start=1) if i > len(turns)]
    for result in turns:
        result.failures = turn_failures(result)
    outcome = CaseResult.of(id=case.id, category=case.category, known_issue=case.known_issue, turns=turns, epoch=epoch)
    await telemetry.close(outcome)
    return outcome


async def _run_turn(
    agent: Agent, case_id: str, index: int, turn: Turn, previous: ChatResponse | None
) -> tuple[TurnResult, ChatResponse | None]:
    session_id = f"eval-{case_id}"
    try:
        if turn.message is not None:
            response = await run_turn(agent, turn.message, session_id=session_id, run_id=f"{case_id}-{index}")
        else:
            assert turn.resume is not None
            pending = previous.pending_approval if previous else None
            if pending is None:
                got = previous.status if previous else "nothing"
                return _not_run(index, turn, "skipped", f"nothing to resume: the turn before ended {got}"), None
            response = await resume_turn(
                agent,
                session_id=session_id,
                approval_id=pending.approval_id,
                decision=turn.resume,
                comment=turn.comment,
            )
    except Exception as exc:  # a failed turn is a result to report, not a reason to stop the eval
        return _not_run(index, turn, "error", f"{type(exc).__name__}: {exc}"), None
    result = TurnResult(
        index=index,
        kind="message" if turn.message is not None else "resume",
        sent=turn.label,
        expected=turn.expect,
        status=response.status,
        answer_kind=response.answer.kind,
        answer_text=response.answer.text,
        cited=[citation.doc_id for citation in response.citations],
        model=response.usage.model,
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
        cost_usd=response.usage.cost_usd,
    )
    return result, response


def _not_run(index: int, turn: Turn, status: Literal["error", "skipped"], why: str) -> TurnResult:
    return TurnResult(
        index=index,
        kind="message" if turn.message is not None else "resume",
        sent=turn.label,
        expected=turn.expect,
        status=status,
        error=why,
    )


def _observe_spans(result: TurnResult, exporter: InMemorySpanExporter) -> None:
    """Attach what the turn's spans say, then clear them so the next turn reads only its own."""
    spans = read_turn_spans(exporter.get_finished_spans())
    exporter.clear()
    result.nodes = spans.nodes
    result.retrieved = spans.retrieved
    result.refusal_reason = spans.refusal_reason
    result.well_formed = spans.well_formed
    result.guardrail_refused = any(node.node == "guardrail_pre" and node.outcome == "refused" for node in spans.nodes)


async def _proposed_action(agent: Agent, session_id: str) -> ProposedAction | None:
    """The paused proposal's arguments: ``ChatResponse`` shows only its summary, the graph's state has them."""
    snapshot = await agent.graph.aget_state(thread_config(session_id))
    proposal = snapshot.values.get("proposal")
    if not proposal:
        return None
    return ProposedAction(name=proposal["action"], arguments=dict(proposal["arguments"]))


async def check_provider(config: AgentConfig) -> None:
    """Raise the factory's ``ConfigError`` now rather than once per case; close the probe client if it can be."""
    client = create_llm_client(config)
    close = getattr(client, "aclose", None)
    if callable(close):
        await close()
