"""Drives one run through its graph and appends its events to the run.

Two drivers share one ending: ``execute`` runs a turn of the support agent (``/chat``: its own events and a
``ChatResponse``), ``execute_graph`` a run of any registered graph (LangGraph's own streams, then the pause or
the final state). However a run stops early (a cancel, a client that left, a provider or a store that failed,
a bug) it ends with one ``error`` event, written by ``_ended``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, cast

from agent import (
    STREAM_MODES,
    TURN_DURABILITY,
    StreamTranslator,
    admit,
    chat_response,
    deleted_account,
    format_timestamp,
    message_text,
    pending_approval,
)
from agent.graphs import GraphStream
from agent.llm import LLMError
from agent.stores import is_store_failure
from api.runs.run_options import without_reserved
from contracts import ErrorInfo, InteractionLogged, RunStatus, TokenDelta

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain_core.runnables import RunnableConfig

    from agent import Agent, AgentState, Clock
    from agent.graphs import RegisteredGraph
    from api.runs.run import Run

__all__ = ("execute", "execute_graph")

logger = logging.getLogger(__name__)

_SLICE_S = 0.001
"""The longest a graph run keeps the event loop between two yields. A model that streams a burst of chunks
without yielding (a firehose, a cached answer) would otherwise hold it for the whole burst, and every request
this instance serves meanwhile (a client rejoining the run with ``Last-Event-ID``, a health check) would wait."""

_CANCEL_MESSAGES = {
    "cancelled": ("The run was cancelled.", False),
    "client_disconnected": ("Every client left and none came back within the grace period.", True),
    "server_shutdown": ("The server shut down while this run was in progress.", True),
    "superseded": ("A new run of the thread interrupted this one (multitask_strategy interrupt).", False),
}


async def execute(run: Run, agent: Agent, graph_input: Any, config: RunnableConfig, *, resume: bool) -> str | None:
    """Run the support agent's graph for ``run``; the account the turn deleted, when it carried out a
    ``delete_account``."""
    translator = StreamTranslator()
    try:
        stream_input = await admit(agent.deps, graph_input, resume=resume)
        answering = False
        async for part in agent.graph.astream(
            stream_input, config, stream_mode=STREAM_MODES, version="v2", durability=TURN_DURABILITY
        ):
            if run.cancel_reason is not None:
                raise asyncio.CancelledError  # the abort's cancellation was swallowed on the way (Run.abort)
            event = translator.translate(part)
            if event is not None:
                run.emit(event)
                if not answering and isinstance(event, TokenDelta):
                    answering = True
                    # A model's chunks can come in a burst: the first token is committed (one yield, to the log's
                    # writer) and sent (another, to the streams it woke) before the rest of the burst is read
                    await asyncio.sleep(0)
                    await asyncio.sleep(0)
        state = await agent.graph.aget_state(config)
        values = cast("AgentState", state.values)
        if state.interrupts:
            approval = pending_approval(values)
            assert approval is not None, "the graph pauses only for a proposal"
            run.pause(chat_response(values, paused=True), approval)
        else:
            response = chat_response(values, paused=False)
            response.decided_by = run.record.snapshot.decided_by  # the interaction log records who decided
            interaction_id = await agent.interactions.record(
                agent.deps.ids.new("int"), message_text(values), response, format_timestamp(agent.deps.clock.now_ns())
            )
            run.emit(InteractionLogged(interaction_id=interaction_id))
            run.complete(response)
            return deleted_account(values)
    except BaseException as exc:
        if not _ended(run, exc, lambda: translator.running_node):
            raise
    return None


async def execute_graph(
    run: Run,
    registered: RegisteredGraph,
    graph_input: Any,
    config: RunnableConfig,
    *,
    clock: Clock,
    admission: Callable[[Any], Awaitable[Any]] | None = None,
) -> None:
    """Run a registered graph for ``run``: its parts as the run asked for them (``RunRecord.graph``), node starts
    and ends for the live graph, then the pause at its interrupts or its final state. ``admission`` turns the
    client's input into the graph's (the support agent screens it)."""
    options = run.record.graph
    assert options is not None, "a run of a registered graph says how it was asked for"
    stream: GraphStream | None = None
    try:
        if admission is not None:
            graph_input = await admission(graph_input)
        async with registered.graph_for(config) as graph:
            stream = GraphStream(graph, config, clock=clock, modes=options.modes)
            slice_ends = time.perf_counter() + _SLICE_S
            async for payload in stream.events(graph_input, context=_context(options.context)):
                if run.cancel_reason is not None:
                    raise asyncio.CancelledError  # the abort's cancellation was swallowed on the way (Run.abort)
                run.emit(payload)
                if time.perf_counter() >= slice_ends:
                    await asyncio.sleep(0)
                    slice_ends = time.perf_counter() + _SLICE_S
            outcome = await stream.outcome()
        if outcome.paused:
            run.pause_graph(list(outcome.interrupts), outcome.values)
        else:
            run.finish_graph(outcome.completed())
    except BaseException as exc:
        if not _ended(run, exc, lambda: stream.current_node if stream is not None else None):
            raise


def _context(context: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if context is None else without_reserved(context)


def _ended(run: Run, exc: BaseException, running_node: Callable[[], str | None]) -> bool:
    """End ``run`` with the ``error`` event ``exc`` stands for; False for what must propagate (a cancel nobody
    asked for, an interpreter exit)."""
    if isinstance(exc, asyncio.CancelledError):
        reason = run.cancel_reason
        if reason is None:
            return False
        if run.fenced:
            return True  # another instance owns the run now; nothing more is written from here
        message, retryable = _CANCEL_MESSAGES[reason]
        status: RunStatus = "failed" if reason == "server_shutdown" else "cancelled"
        run.fail(ErrorInfo(code=reason, message=message, retryable=retryable, node=running_node()), status=status)
        return True
    if isinstance(exc, LLMError):
        run.fail(ErrorInfo(code=exc.code, message=str(exc), retryable=exc.retryable, node=running_node()))
        return True
    if not isinstance(exc, Exception):
        return False
    if is_store_failure(exc):
        logger.error("run %s failed: a store is unreachable (%s)", run.run_id, type(exc).__name__)
        run.fail(
            ErrorInfo(
                code="store_unavailable",
                message="A store the service needs is unreachable; try again shortly.",
                retryable=True,
                node=running_node(),
            )
        )
        return True
    logger.exception("run %s failed", run.run_id)
    run.fail(
        ErrorInfo(
            code="internal_error",
            message="The agent failed unexpectedly; the failure is logged on the server.",
            retryable=False,
            node=running_node(),
        )
    )
    return True
