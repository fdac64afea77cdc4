"""One run of any compiled graph as a stream of durable payloads, then its outcome.

::

    stream = GraphStream(graph, config, clock=clock, modes=["values", "messages-tuple"])
    async for payload in stream.events(graph_input):      # NodeStarted | NodeCompleted | GraphPart | ...
        run.emit(payload)
    outcome = await stream.outcome()                      # from the checkpoint: paused, or the final state
    settlement = await registered.hooks.settle(outcome, context)   # what the stop becomes (api.runs.executor)

``graph_input`` is the run's input or a ``Command(resume=...)``; the graph is asked for its own streams
(``astream(..., subgraphs=True, version="v2")``), translated by ``agent.graphs.translate``. When the stream
raises, ``stream.current_node`` is the node the error (or a cancel) hit. The outcome is read from the
checkpoint (``aget_state``), so the graph must run on a checkpointer, as every registered graph does: pending
interrupts make a pause (each with its id, value and the namespace of the subgraph that raised it), none the
final state as the run's output, both JSON-safe, redacted and bounded like every payload (the state as the graph
holds it is there too, for hooks that read it typed, as the support agent's do).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from langgraph.types import StateSnapshot

from agent.clock import SystemClock
from agent.graphs.json_safe import DEFAULT_PART_LIMIT_BYTES, to_json_safe
from agent.graphs.translate import DEFAULT_MODES, PartTranslator
from contracts import InterruptInfo, RunCompleted

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from langchain_core.runnables import RunnableConfig
    from langgraph.types import All, Durability

    from agent.clock import Clock
    from agent.graphs.compiled import CompiledGraph
    from agent.graphs.translate import GraphEvent

__all__ = ("GraphOutcome", "GraphStream")

_NS_SEPARATOR = "|"
"""Between the levels of a checkpoint namespace (``step:<task id>|inner:<task id>``)."""


class GraphOutcome:
    """Where a run of a graph stopped."""

    def __init__(self, state: Any, interrupts: tuple[InterruptInfo, ...] = (), *, limit_bytes: int) -> None:
        self.state = state
        """The state values as the graph holds them (what the support agent's ``ChatResponse`` is read from)."""
        self.interrupts = interrupts
        """What the graph waits for (JSON-safe values); empty when it finished."""
        self._limit = limit_bytes

    @cached_property
    def values(self) -> Any:
        """The state values, JSON-safe, redacted and bounded: the output of a finished run, the state so far of a
        paused one (made when first asked for: the support agent's turns never ask)."""
        return to_json_safe(self.state, limit_bytes=self._limit)

    @property
    def paused(self) -> bool:
        return bool(self.interrupts)

    def completed(self) -> RunCompleted:
        """The terminal payload of a run that finished."""
        return RunCompleted(output=self.values)


class GraphStream:
    """One ``astream`` call of ``graph`` with ``config`` (its ``thread_id`` names the thread) and its outcome."""

    def __init__(
        self,
        graph: CompiledGraph,
        config: RunnableConfig,
        *,
        clock: Clock | None = None,
        modes: Sequence[str] = DEFAULT_MODES,
        limit_bytes: int = DEFAULT_PART_LIMIT_BYTES,
        nodes_report_themselves: bool = False,
    ) -> None:
        """``modes``: the LangGraph stream modes the run logs as ``GraphPart``s (``messages-tuple`` is
        ``messages``); ``limit_bytes`` bounds one part, interrupt value or output; ``nodes_report_themselves``:
        the node events are the graph's own (``PartTranslator``)."""
        self._graph = graph
        self._config = config
        self._limit = limit_bytes
        self.translator = PartTranslator(
            clock or SystemClock(), modes, limit_bytes=limit_bytes, nodes_report_themselves=nodes_report_themselves
        )

    @property
    def current_node(self) -> str | None:
        """The node an error or a cancel hits: the first that failed, else the latest still running."""
        return self.translator.current_node

    async def events(
        self,
        graph_input: Any,
        *,
        context: Any = None,
        interrupt_before: All | Sequence[str] | None = None,
        interrupt_after: All | Sequence[str] | None = None,
        durability: Durability | None = None,
    ) -> AsyncIterator[GraphEvent]:
        """The run's payloads as the graph streams; the graph's own exception ends it."""
        options: dict[str, Any] = {
            "context": context,
            "stream_mode": self.translator.stream_modes,
            "interrupt_before": interrupt_before,
            "interrupt_after": interrupt_after,
            "durability": durability,
            "subgraphs": True,
        }
        if self.translator.streams_events:
            async for callback_event in self._graph.astream_events(graph_input, self._config, version="v2", **options):
                for event in self.translator.translate_event(callback_event):
                    yield event
            return
        async for part in self._graph.astream(graph_input, self._config, version="v2", **options):
            for event in self.translator.translate(part):
                yield event

    async def outcome(self) -> GraphOutcome:
        """Paused at interrupts, or finished with its state: as the checkpoint has it now."""
        state = await self._graph.aget_state(self._config)
        if not state.interrupts:
            return GraphOutcome(state.values, limit_bytes=self._limit)
        state = await self._graph.aget_state(self._config, subgraphs=True)  # where each interrupt was raised
        namespaces = _interrupt_namespaces(state)
        return GraphOutcome(
            state.values,
            tuple(
                InterruptInfo(
                    id=interrupt.id,
                    value=to_json_safe(interrupt.value, limit_bytes=self._limit),
                    ns=namespaces.get(interrupt.id, []),
                )
                for interrupt in state.interrupts
            ),
            limit_bytes=self._limit,
        )


def _interrupt_namespaces(state: StateSnapshot) -> dict[str, list[str]]:
    """Each pending interrupt's namespace: that of the innermost subgraph whose task raised it (a subgraph's
    interrupt is also listed by every task above it)."""
    found: dict[str, list[str]] = {}

    def visit(snapshot: StateSnapshot, namespace: str) -> None:
        for task in snapshot.tasks:
            if isinstance(task.state, StateSnapshot):
                visit(task.state, task.state.config.get("configurable", {}).get("checkpoint_ns", ""))
            for interrupt in task.interrupts:
                found.setdefault(interrupt.id, namespace.split(_NS_SEPARATOR) if namespace else [])

    visit(state, "")
    return found
