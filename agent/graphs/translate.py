"""LangGraph's own stream parts (``version="v2"``, ``subgraphs=True``) as the durable payloads of a run.

For any graph, with no change to its nodes:

- LangGraph's ``debug`` stream (always asked for, as the Agent Server does) gives each task's start and
  result with its superstep: ``NodeStarted`` and ``NodeCompleted``, with the latency between the two on the
  injected clock, the outcome (``ok``, ``error``, ``interrupted``) and a one-line summary (the keys the node
  updated, the error, what the interrupt waits for). A node of a subgraph is named by its path, ``step:search``
  (the id the topology draws), and carries LangGraph's namespace (``["step:<task id>"]``).
- Every part of the modes the run asked for is a ``GraphPart`` with its namespace; its data is JSON-safe,
  redacted and bounded (``agent.graphs.json_safe``); a model's streamed chunks are redacted across chunks
  first (``agent.graphs.message_chunks``), so a card number a model writes token by token is caught too. A
  ``values`` part carries ``__interrupt__`` again (v2 splits it out) when the graph stopped at one, as the
  Agent Server's streams do.
- A graph whose nodes report themselves (the support agent, ``nodes_report_themselves``) is not asked for
  ``debug``: the ``NodeStarted``, ``NodeCompleted``, ``TokenDelta`` and ``CostUpdated`` its nodes write to the
  ``custom`` stream are its events as they are (a node's latency is its span's); its other custom writes are
  ``custom`` parts when the run asked for them.
- ``events`` (LangChain's callback stream, ``astream_events`` v2) is not one of ``astream``'s modes: a run that
  asks for it is streamed by ``astream_events``, whose root ``on_chain_stream`` events carry the other modes'
  parts (read by ``translate``) and whose other events are ``events`` parts (``translate_event``), a model's
  streamed chunks redacted across chunks like the ``messages`` parts, as the Agent Server streams them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.graphs.json_safe import CUT_KEY, DEFAULT_PART_LIMIT_BYTES, PreparedValues, describe_error, to_json_safe
from agent.graphs.message_chunks import ChunkRedactor
from agent.guardrails import redact
from contracts import GRAPH_STREAM_MODES, CostUpdated, GraphPart, NodeCompleted, NodeStarted, TokenDelta

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from langgraph.types import StreamMode, StreamPart

    from agent.clock import Clock
    from contracts import GraphStreamMode

__all__ = ("DEFAULT_MODES", "GraphEvent", "PartTranslator", "parse_modes")

GraphEvent = NodeStarted | NodeCompleted | TokenDelta | CostUpdated | GraphPart
_REPORTED = frozenset({NodeStarted, NodeCompleted, TokenDelta, CostUpdated})
"""What the nodes of a graph that reports itself (the support agent) write to the ``custom`` stream: logged as the
contract's own events, not as ``custom`` parts."""
DEFAULT_MODES: tuple[GraphStreamMode, ...] = ("values", "updates", "messages", "custom")
"""What a watchable run streams when it asks for nothing else: the state, each node's update, the model's
tokens and the nodes' own writes."""
_ALIASES = {"messages-tuple": "messages"}
_EVENTS: GraphStreamMode = "events"
_HIDDEN_TAG = "langsmith:hidden"
_SUMMARY_CHARS = 200
_INTERRUPT = "__interrupt__"


def parse_modes(modes: Iterable[str]) -> tuple[GraphStreamMode, ...]:
    """The LangGraph stream modes of ``modes`` in order, ``messages-tuple`` read as ``messages``; ``ValueError``
    naming a mode this translator does not stream."""
    parsed: list[GraphStreamMode] = []
    for mode in modes:
        name = _ALIASES.get(mode, mode)
        if name not in GRAPH_STREAM_MODES:
            raise ValueError(f"stream mode {mode!r} is not one of {', '.join(GRAPH_STREAM_MODES)} (or messages-tuple)")
        if name not in parsed:
            parsed.append(name)
    return tuple(parsed)


class _Running:
    __slots__ = ("node", "started_ns")

    def __init__(self, node: str, started_ns: int) -> None:
        self.node = node
        self.started_ns = started_ns


class PartTranslator:
    """Stateful over one ``astream`` call: it pairs each task's start with its result, and knows which node an
    error or a cancel hits (``current_node``)."""

    def __init__(
        self,
        clock: Clock,
        modes: Sequence[str] = DEFAULT_MODES,
        *,
        limit_bytes: int = DEFAULT_PART_LIMIT_BYTES,
        nodes_report_themselves: bool = False,
    ) -> None:
        """``nodes_report_themselves``: the graph's nodes write their own node events (and token deltas, cost) to
        the ``custom`` stream (``agent.graphs.run_hooks.RunHooks``), so ``debug`` is not asked for."""
        self.modes = parse_modes(modes)
        self._reporting = nodes_report_themselves
        self._clock = clock
        self._limit = limit_bytes
        self._running: dict[tuple[tuple[str, ...], str], _Running] = {}
        self._failed: str | None = None
        self._chunks = ChunkRedactor()
        self._event_chunks = ChunkRedactor()
        self._metadata = PreparedValues()

    @property
    def stream_modes(self) -> list[StreamMode]:
        """What to ask ``astream`` for: the run's modes and the source of the node events, ``debug`` (or ``custom``,
        where the nodes report themselves)."""
        source = "custom" if self._reporting else "debug"
        return [mode for mode in dict.fromkeys([*self.modes, source]) if mode != _EVENTS]  # type: ignore[misc]

    @property
    def streams_events(self) -> bool:
        """Whether the run asked for ``events``, so is streamed by ``astream_events``."""
        return _EVENTS in self.modes

    def translate_event(self, event: Mapping[str, Any]) -> list[GraphEvent]:
        """One event of ``astream_events(version="v2")`` over a run asked with ``subgraphs=True``: the root's
        ``on_chain_stream`` is a part of the other modes, any other event an ``events`` part."""
        if _HIDDEN_TAG in (event.get("tags") or ()):
            return []
        data = event.get("data") or {}
        if event["event"] == "on_chain_stream" and not event.get("parent_ids"):
            ns, mode, chunk = data["chunk"]
            return self.translate(_as_part(ns, mode, chunk))
        if "chunk" in data:
            data = {**data, "chunk": self._event_chunks.dump(data["chunk"], depth=2)}
        safe = to_json_safe({**event, "data": data}, limit_bytes=self._limit)
        return [GraphPart(mode=_EVENTS, ns=[], data=safe)]

    @property
    def current_node(self) -> str | None:
        """The first node that failed, else the node started last that is still running."""
        if self._failed is not None:
            return self._failed
        return next(reversed(self._running.values())).node if self._running else None

    def translate(self, part: StreamPart[Any, Any]) -> list[GraphEvent]:
        data: Any = part["data"]
        if self._reporting and data.__class__ in _REPORTED:  # nearly every part of a support agent's turn
            return [self._reported(data)]
        mode: str = part["type"]
        ns: tuple[str, ...] = part["ns"]
        events: list[GraphEvent] = []
        if mode == "debug":
            kind = data["type"]
            if kind == "task":
                events.append(self._started(ns, data["step"], data["payload"]))
            elif kind == "task_result":
                events.append(self._completed(ns, data["step"], data["payload"]))
        if mode not in self.modes:
            return events
        if mode == "messages":
            # LangGraph attaches one metadata dict to all the chunks of a model call: converted once
            data = (self._chunks.dump(data[0], depth=1), self._metadata.prepared(data[1], depth=1))
        safe = to_json_safe(data, limit_bytes=self._limit)
        interrupts: Any = part.get("interrupts") if mode == "values" else None
        if interrupts:
            pending = to_json_safe(list(interrupts), limit_bytes=self._limit)
            keep = isinstance(safe, dict) and CUT_KEY not in safe
            safe = {**safe, _INTERRUPT: pending} if keep else {_INTERRUPT: pending}
        events.append(GraphPart(mode=mode, ns=list(ns), data=safe))
        return events

    def _reported(self, event: NodeStarted | NodeCompleted | TokenDelta | CostUpdated) -> GraphEvent:
        """A node's own report: as it is, the node it names remembered while it runs."""
        if isinstance(event, NodeStarted):
            self._running[((), event.node)] = _Running(event.node, 0)
        elif isinstance(event, NodeCompleted):
            self._running.pop(((), event.node), None)
        return event

    def _started(self, ns: tuple[str, ...], step: int, task: dict[str, Any]) -> NodeStarted:
        node = node_path(ns, task["name"])
        self._running[(ns, task["id"])] = _Running(node, self._clock.now_ns())
        return NodeStarted(node=node, step=max(step, 0), ns=list(ns))

    def _completed(self, ns: tuple[str, ...], step: int, result: dict[str, Any]) -> NodeCompleted:
        now = self._clock.now_ns()
        running = self._running.pop((ns, result["id"]), None)
        node = running.node if running is not None else node_path(ns, result["name"])
        error = result.get("error")
        interrupts = result.get("interrupts") or []
        if error is not None:
            outcome, summary = "error", _error_summary(error)
            self._failed = self._failed or node
        elif interrupts:
            outcome, summary = "interrupted", _waiting_summary(interrupts[0])
        else:
            outcome, summary = "ok", _update_summary(result.get("result"))
        return NodeCompleted(
            node=node,
            step=max(step, 0),
            latency_ms=round((now - running.started_ns) / 1e6, 3) if running is not None else 0.0,
            outcome=outcome,
            summary=_one_line(summary),
            ns=list(ns),
        )


def node_path(ns: Sequence[str], name: str) -> str:
    """``step:search`` for node ``search`` in namespace ``("step:<task id>",)``: the topology's node id."""
    return ":".join([*(part.rpartition(":")[0] or part for part in ns), name])


def _update_summary(result: Any) -> str:
    if isinstance(result, dict) and result:
        return "updated " + ", ".join(str(key) for key in result)
    return "no update"


def _waiting_summary(interrupt: Any) -> str:
    value = interrupt.get("value") if isinstance(interrupt, dict) else getattr(interrupt, "value", None)
    said = value.get("summary") if isinstance(value, dict) else None
    return f"waiting: {said}" if isinstance(said, str) and said.strip() else "waiting for input"


def _error_summary(error: Any) -> str:
    if isinstance(error, BaseException):
        described = describe_error(error)
        return f"{described['error']}: {described['message']}" if described["message"] else described["error"]
    return f"error: {error}"


def _one_line(text: str) -> str:
    line = redact(text.strip().splitlines()[0] if text.strip() else "")
    return line if len(line) <= _SUMMARY_CHARS else line[: _SUMMARY_CHARS - 1] + "…"


def _as_part(ns: tuple[str, ...], mode: str, chunk: Any) -> Any:
    """A part of ``astream``'s first format (what ``astream_events`` carries) in the second's shape, a values
    part's pending interrupts split out as ``version="v2"`` does."""
    if mode == "values" and isinstance(chunk, dict) and _INTERRUPT in chunk:
        values = {key: value for key, value in chunk.items() if key != _INTERRUPT}
        return {"type": mode, "ns": ns, "data": values, "interrupts": chunk[_INTERRUPT]}
    return {"type": mode, "ns": ns, "data": chunk}
