"""Running a dataset through any registered graph, in-process, recording what LangGraph's own streams say.

Each case and epoch is one thread on one in-memory checkpointer: its input (then each answer of ``resume``
to an interrupt, as ``Command(resume=value)``, then each later turn of ``then``) streamed by ``GraphStream``,
as a run of the service streams it. The trajectory is the ``node_started`` events in order, a node run again
on resume counted once and each pause marked (``agent.evaluation.trajectory``); the tool calls are the AI
messages' ``tool_calls`` in the ``updates`` parts; the interrupts are the pauses' values; tokens
are the AI messages' ``usage_metadata``; the state at every stop is a step of the record. Every event is
written, as the run's envelopes, to a JSONL file per case and epoch, which the report links to.

The support agent runs through the same function (``agent.evaluation.runner``), on the agent it opened for
the case, with an admission that screens what the case sends as the service screens a run's input.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from typing import TYPE_CHECKING, Any

import msgspec
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agent.clock import SystemClock, format_timestamp
from agent.evaluation._epochs import run_epochs
from agent.evaluation.case_trace import CaseTrace
from agent.evaluation.graph_cases import as_messages_input
from agent.evaluation.records import GraphRecord, GraphStep, ToolCall
from agent.evaluation.results import EvalRun
from agent.evaluation.scorers import score_case
from agent.evaluation.support_cases import turn_kinds
from agent.evaluation.trajectory import TrajectoryRecorder
from agent.graphs.config import read_graphs_config
from agent.graphs.environment import apply_graphs_config
from agent.graphs.loading import load_graphs
from agent.graphs.registry import RegisteredGraph
from agent.graphs.streaming import GraphStream
from agent.stores.private_files import private_directory, write_private
from contracts import (
    ErrorEvent,
    ErrorInfo,
    GraphPart,
    GraphPartEvent,
    GraphTopologyEvent,
    NodeCompleted,
    NodeCompletedEvent,
    NodeStarted,
    NodeStartedEvent,
    RunCompleted,
    RunCompletedEvent,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence
    from pathlib import Path

    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.records import SentKind
    from agent.graphs.translate import GraphEvent
    from contracts import InterruptInfo

    Admission = Callable[[Any, Sequence[InterruptInfo]], Awaitable[Any]]
    """What a send becomes as the graph's input, given the interrupts the run waits at."""

__all__ = ("EVENTS_DIR", "case_thread_id", "eval_id", "load_registered_graph", "run_graph_case", "run_graph_dataset")

EVENTS_DIR = "events"
"""Under ``--out``: one ``<case>.<epoch>.jsonl`` event log per case and epoch."""
_MODES = ("values", "updates", "messages", "custom")
"""What a case's event log records: what the SPA's replay draws (the support agent's tokens and cost are ``custom``)."""
_MAX_STEPS = 50
"""Resumes and later turns a case may take in all: a graph that keeps interrupting ends the case."""
_MAX_ID = 64
"""A run or session id's length (``contracts.ids.ID_PATTERN``)."""


async def load_registered_graph(
    config_path: Path, graph_id: str, checkpointer: BaseCheckpointSaver[Any]
) -> RegisteredGraph:
    """The graph ``graph_id`` of the ``langgraph.json`` at ``config_path``, loaded as the service loads it
    (its ``env`` and ``dependencies`` applied) on ``checkpointer``; ``ConfigError`` naming the ids there are."""
    from agent.config import ConfigError

    config = read_graphs_config(config_path)
    if graph_id not in [spec.graph_id for spec in config.graphs]:
        known = ", ".join(spec.graph_id for spec in config.graphs)
        raise ConfigError(f"{config.path} has no graph {graph_id!r} (it has: {known})")
    apply_graphs_config(config)
    for loaded in await load_graphs(config, checkpointer):
        if loaded.spec.graph_id == graph_id:
            return RegisteredGraph.from_loaded(loaded)
    raise ConfigError(f"{config.path}: graph {graph_id!r} did not load")


async def run_graph_dataset(
    cases: Sequence[GraphCase],
    *,
    config_path: Path,
    graph_id: str,
    provider: str,
    events_dir: Path | None,
    concurrency: int = 8,
    epochs: int = 1,
    done: Sequence[GraphRecord] = (),
    on_case_done: Callable[[GraphRecord], None] | None = None,
) -> EvalRun:
    """Every case ``epochs`` times through the graph, at most ``concurrency`` at a time; records in dataset
    order, epochs in order. ``done``: records of an interrupted run (``--resume``), not run again."""
    if concurrency < 1 or epochs < 1:
        raise ValueError("concurrency and epochs must be at least 1")
    checkpointer = InMemorySaver()
    registered = await load_registered_graph(config_path, graph_id, checkpointer)
    started_ns, started = time.time_ns(), time.perf_counter()
    records = await run_epochs(
        cases,
        lambda case, epoch: run_graph_case(case, registered, epoch=epoch, events_dir=events_dir),
        epochs=epochs,
        concurrency=concurrency,
        done=done,
        on_case_done=on_case_done,
    )
    return EvalRun(
        provider=provider,
        model=None,
        started_at=format_timestamp(started_ns),
        duration_s=round(time.perf_counter() - started, 3),
        concurrency=concurrency,
        retrieval_k=0,
        cases=[],
        epochs=epochs,
        records=records,
    )


async def run_graph_case(
    case: GraphCase,
    registered: RegisteredGraph,
    *,
    epoch: int = 1,
    events_dir: Path | None = None,
    admission: Admission | None = None,
    telemetry: CaseTrace | None = None,
) -> GraphRecord:
    """The case's input, resumes and later turns on a thread of its own; then every check it asks for.

    ``admission`` turns each send into the graph's input (the support agent's are screened, as the service
    screens a run's). ``telemetry``: the case's, entered by the caller around the graph it opened for the case
    (the support agent), which closes it with its own result; without one the case is traced here.
    """
    thread_id = case_thread_id(case.id, epoch)
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    log = _EventLog(thread_id, registered)
    record = GraphRecord(id=case.id, epoch=epoch, category=case.category, known_issue=case.known_issue)
    sends = _Sends(case)
    trajectory = TrajectoryRecorder(record.trajectory)
    started = time.perf_counter()
    own = telemetry is None
    traced = CaseTrace(epoch=epoch) if telemetry is None else telemetry  # its spans, its checks as evaluations
    try:
        async with traced if own else contextlib.nullcontext(), registered.graph_for(config) as graph:
            sent: SentKind = "input"
            pending: Any = case.first_input()
            waiting: Sequence[InterruptInfo] = ()
            for _ in range(_MAX_STEPS):
                graph_input = pending if admission is None else await admission(pending, waiting)
                stream = GraphStream(graph, config, modes=_MODES)
                trajectory.begin(resuming=sent == "resume")
                async for event in stream.events(graph_input):
                    log.add(event)
                    _observe(record, trajectory, event)
                outcome = await stream.outcome()
                if outcome.paused:
                    trajectory.paused()
                waiting = outcome.interrupts
                values = [interrupt.value for interrupt in waiting]
                record.state = outcome.values
                record.interrupts += values
                if case.expect.turns is not None:  # checked turn by turn: the state at every stop is kept
                    record.steps.append(
                        GraphStep(sent=sent, paused=outcome.paused, interrupts=values, state=outcome.values)
                    )
                following = sends.after(paused=outcome.paused)
                if following is None:
                    record.status = "paused" if outcome.paused else "completed"
                    if not outcome.paused:
                        log.completed(outcome.values)
                    break
                sent, pending = following
    except Exception as exc:  # a graph that raises is a failed case to report, not a reason to stop the eval
        record.status, record.error = "error", f"{type(exc).__name__}: {exc}"
        log.failed(record.error)
    record.latency_ms = round((time.perf_counter() - started) * 1000, 3)
    await _judge(case, record)
    if events_dir is not None:
        record.events = log.write(events_dir, f"{case.id}.{epoch}.jsonl")
    if own:
        await traced.close(record)
    return record


async def _judge(case: GraphCase, record: GraphRecord) -> None:
    """The case's checks, and whether it passed: it did not raise, stopped at no interrupt it did not expect,
    and passed every check."""
    record.checks = [] if record.status == "error" else await score_case(case, record)
    expected_pause = case.expect.interrupts is not None or case.expect.turns is not None
    unanswered = record.status == "paused" and not expected_pause
    record.passed = record.status != "error" and not unanswered and all(check.passed for check in record.checks)
    if unanswered:
        record.error = "the run paused at an interrupt no `resume` answers (expect `interrupts` to allow it)"


def case_thread_id(case_id: str, epoch: int) -> str:
    """The thread (and the event log's run id) of one case and epoch: ``eval-<case id>-<epoch>``."""
    return eval_id("eval", case_id, str(epoch))


def eval_id(*parts: str) -> str:
    """``parts`` joined by ``-`` as a run or session id: one longer than an id may be keeps its start and ends
    with a hash of the whole, so two long case ids stay apart."""
    joined = "-".join(parts)
    if len(joined) <= _MAX_ID:
        return joined
    digest = hashlib.sha256(joined.encode()).hexdigest()[:12]
    return f"{joined[: _MAX_ID - len(digest) - 1]}-{digest}"


class _Sends:
    """What the case sends after each stop.

    A case without ``expect.turns``: the next value of ``resume`` answers a pause, the next of ``then``
    follows a run that finished, and a pause nothing answers ends the case. A case with them (the support
    agent's) sends in their order: after a turn expected to pause, its resume, if the run did pause (else
    there is nothing to resume and the case ends); after any other turn, the next message, however the run
    before it stopped, as a person writing again would.
    """

    def __init__(self, case: GraphCase) -> None:
        self._resumes = list(case.resume)
        self._later = [as_messages_input(turn) if isinstance(turn, str) else turn for turn in case.then]
        self._kinds = turn_kinds(case.expect.turns)[1:] if case.expect.turns is not None else None

    def after(self, *, paused: bool) -> tuple[SentKind, Any] | None:
        if self._kinds is None:
            if paused:
                return ("resume", Command(resume=self._resumes.pop(0))) if self._resumes else None
            return ("then", self._later.pop(0)) if self._later else None
        if not self._kinds:
            return None
        if self._kinds.pop(0) == "message":
            return "then", self._later.pop(0)
        return ("resume", Command(resume=self._resumes.pop(0))) if paused else None


def _observe(record: GraphRecord, trajectory: TrajectoryRecorder, event: GraphEvent) -> None:
    if isinstance(event, NodeCompleted):
        trajectory.completed(event)
    elif isinstance(event, NodeStarted):
        trajectory.started(event)
    elif isinstance(event, GraphPart) and event.mode == "updates" and not event.ns:
        for message in _ai_messages(event.data):
            for call in message.get("tool_calls") or []:
                record.tool_calls.append(ToolCall(name=str(call.get("name")), args=dict(call.get("args") or {})))
            usage = message.get("usage_metadata") or {}
            record.input_tokens += int(usage.get("input_tokens") or 0)
            record.output_tokens += int(usage.get("output_tokens") or 0)


def _ai_messages(update: Any) -> list[dict[str, Any]]:
    """The AI messages a root ``updates`` part carries (``{node: {"messages": [...]}}``)."""
    found: list[dict[str, Any]] = []
    if not isinstance(update, dict):
        return found
    for written in update.values():
        messages = written.get("messages") if isinstance(written, dict) else None
        if isinstance(messages, dict):
            messages = [messages]
        for message in messages or []:
            if isinstance(message, dict) and message.get("type") in ("ai", "AIMessageChunk"):
                found.append(message)
    return found


class _EventLog:
    """The case's events as the envelopes a run of the service logs (``GET /runs/{id}/events``)."""

    def __init__(self, run_id: str, registered: RegisteredGraph) -> None:
        self._run_id = run_id
        self._clock = SystemClock()
        topology = msgspec.structs.replace(registered.topology, session_id=run_id)
        self._lines: list[bytes] = []
        self._append(GraphTopologyEvent, topology, "running")

    def add(self, event: GraphEvent) -> None:
        if isinstance(event, NodeStarted):
            self._append(NodeStartedEvent, event, "running")
        elif isinstance(event, NodeCompleted):
            self._append(NodeCompletedEvent, event, "running")
        else:
            self._append(GraphPartEvent, event, "running")

    def completed(self, output: Any) -> None:
        self._append(RunCompletedEvent, RunCompleted(output=output), "completed")

    def failed(self, message: str) -> None:
        error = ErrorInfo(code="internal_error", message=message, retryable=False, node=None)
        self._append(ErrorEvent, error, "failed")

    def write(self, folder: Path, name: str) -> str:
        private_directory(folder)
        write_private(folder / name, b"".join(self._lines))
        return f"{EVENTS_DIR}/{name}"

    def _append(self, kind: Any, data: Any, status: str) -> None:
        envelope = kind(
            v=1,
            run_id=self._run_id,
            seq=len(self._lines) + 1,
            status=status,
            at=format_timestamp(self._clock.now_ns()),
            data=data,
        )
        self._lines.append(msgspec.json.encode(envelope) + b"\n")
