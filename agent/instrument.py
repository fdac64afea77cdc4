"""Wraps each node in its OpenTelemetry span, records the span's duration in the trace, and tells the stream.

The span, a child of the run's ``invoke_agent`` span (``agent.graph_tracing``), is the one measurement of a
node's latency: ``ChatResponse.trace`` and the ``node_completed`` event both read the entry written here.
``node_started`` and ``node_completed`` go to LangGraph's ``custom`` stream from here, beside the tokens, so
a streamed turn needs no other stream mode (each one LangGraph adds costs about a quarter of a millisecond
before the first token).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol, cast

import msgspec
from langgraph.config import get_config, get_stream_writer
from langgraph.errors import GraphInterrupt
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from agent.graph_tracing import parent_context
from contracts import NodeCompleted, NodeStarted

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from opentelemetry.sdk.trace import ReadableSpan

    from agent.deps import AgentDeps
    from agent.state import AgentState

    NodeFunction = Callable[[AgentState, AgentDeps], Awaitable["NodeResult"]]

__all__ = ("InstrumentedNode", "NodeResult", "instrumented")


class NodeResult(msgspec.Struct, frozen=True, kw_only=True):
    update: dict[str, Any]
    outcome: str
    summary: str


class InstrumentedNode(Protocol):
    """A node as LangGraph calls it: the state in, the update out."""

    def __call__(self, state: AgentState) -> Awaitable[dict[str, Any]]: ...


def instrumented(name: str, function: NodeFunction, deps: AgentDeps) -> InstrumentedNode:
    async def node(state: AgentState) -> dict[str, Any]:
        stream = get_stream_writer()
        config = get_config()
        step: int = config["metadata"]["langgraph_step"]
        stream(NodeStarted(node=name, step=step))
        span = deps.tracer.start_span(
            f"node {name}",
            context=parent_context(config),
            start_time=deps.clock.now_ns(),
            attributes={
                "agent.node": name,
                "agent.run_id": state["run_id"],
                "agent.session_id": state["session_id"],
            },
        )
        try:
            with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                result = await function(state, deps)
        except GraphInterrupt:
            span.set_attribute("agent.outcome", "waiting")
            span.end(end_time=deps.clock.now_ns())
            raise
        except asyncio.CancelledError:
            span.set_attribute("agent.outcome", "cancelled")
            span.end(end_time=deps.clock.now_ns())
            raise
        except Exception as exc:
            span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            span.set_attribute("agent.outcome", "failed")
            span.end(end_time=deps.clock.now_ns())
            raise
        span.set_attribute("agent.outcome", result.outcome)
        span.end(end_time=deps.clock.now_ns())
        finished = cast("ReadableSpan", span)
        assert finished.start_time is not None
        assert finished.end_time is not None
        latency_ms = round((finished.end_time - finished.start_time) / 1e6, 3)
        entry = {
            "run_id": state["run_id"],
            "node": name,
            "latency_ms": latency_ms,
            "outcome": result.outcome,
            "summary": result.summary,
        }
        stream(
            NodeCompleted(node=name, step=step, latency_ms=latency_ms, outcome=result.outcome, summary=result.summary)
        )
        return {**result.update, "trace": [entry]}

    node.__name__ = name
    return node
