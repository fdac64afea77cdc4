"""Drives one run of a registered graph and appends its events to the run: the one executor of every graph.

The support agent's ``/chat`` turns and a team's graph through any protocol run here alike: the input enters
through the graph's hooks (``RunHooks.admit``: the support agent's guardrails), the graph's own streams become
the run's events (``GraphStream``: node starts and ends, the parts of the modes the run logs, or the support
agent's own node reports, token deltas and cost), and the stop settles through the hooks (``RunHooks.settle``:
a pause at interrupts, or the run's end, which for the support agent is its ``ChatResponse``). However a run
stops early (a cancel, a client that left, a provider or a store that failed, a bug) it ends with one ``error``
event, written by ``_ended``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from agent.graphs import GraphStream, Pause
from agent.llm import LLMError
from agent.stores import is_store_failure
from api.runs.run_options import without_reserved
from contracts import ErrorInfo, RunStatus, TokenDelta

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.runnables import RunnableConfig

    from agent import Clock
    from agent.graphs import RegisteredGraph, RunContext
    from api.runs.run import Run

__all__ = ("execute_graph",)

logger = logging.getLogger(__name__)

_SLICE_S = 0.001
"""The longest a graph run keeps the event loop between two yields. A model that streams a burst of chunks
without yielding (a firehose, a cached answer) would otherwise hold it for the whole burst, and every request
this instance serves meanwhile (a client rejoining the run with ``Last-Event-ID``, a health check) would wait."""

_CANCEL_MESSAGES = {
    "cancelled": ("The run was cancelled.", False),
    "client_disconnected": ("Every client left and none came back within the grace period.", True),
    "server_shutdown": ("The server shut down while this run was in progress.", True),
    "superseded": ("A new run of the thread interrupted this one (multitask_strategy interrupt or rollback).", False),
}


async def execute_graph(
    run: Run,
    registered: RegisteredGraph,
    graph_input: Any,
    config: RunnableConfig,
    *,
    clock: Clock,
    context: RunContext,
) -> str | None:
    """Run ``registered`` for ``run`` (``graph_input``: the client's input, or a ``Command(resume=...)``); the
    account the run deleted, when it carried out a ``delete_account``."""
    options = run.record.graph
    hooks = registered.hooks
    stream: GraphStream | None = None
    try:
        graph_input = await hooks.admit(graph_input, context)
        async with registered.graph_for(config) as graph:
            stream = GraphStream(
                graph,
                config,
                clock=clock,
                modes=options.modes if options is not None else (),
                nodes_report_themselves=hooks.nodes_report_themselves,
            )
            context_values = None if options is None or options.context is None else without_reserved(options.context)
            answering = False
            # a graph whose nodes report themselves paces its own model calls (the support agent's yield per token),
            # and a slice would make its turns' interleaving, and so their recorded times, depend on the machine
            slicing = not hooks.nodes_report_themselves
            slice_ends = time.perf_counter() + _SLICE_S
            async for payload in stream.events(graph_input, context=context_values, durability=hooks.durability):
                if run.cancel_reason is not None:
                    raise asyncio.CancelledError  # the abort's cancellation was swallowed on the way (Run.abort)
                run.emit(payload)
                if not answering and payload.__class__ is TokenDelta:
                    answering = True
                    # A model's chunks can come in a burst: the first token is committed (one yield, to the log's
                    # writer) and sent (another, to the streams it woke) before the rest of the burst is read
                    await asyncio.sleep(0)
                    await asyncio.sleep(0)
                elif slicing and time.perf_counter() >= slice_ends:
                    await asyncio.sleep(0)
                    slice_ends = time.perf_counter() + _SLICE_S
            outcome = await stream.outcome()
        settlement = await hooks.settle(outcome, context)
        if isinstance(settlement, Pause):
            run.pause(settlement, outcome)
            return None
        run.finish(settlement, outcome)
        return settlement.erase_account
    except BaseException as exc:
        if not _ended(run, exc, lambda: stream.current_node if stream is not None else None):
            raise
    return None


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
