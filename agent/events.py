"""Translates LangGraph's v2 stream parts into contract event payloads. The only module that reads them.

``tasks`` parts give a node's start and result, ``checkpoints`` parts the superstep each task runs in,
``custom`` parts carry what nodes wrote with ``get_stream_writer()`` (token deltas, cost).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contracts import (
    CostUpdated,
    GraphTopology,
    NodeCompleted,
    NodeStarted,
    TokenDelta,
    TopologyEdge,
    TopologyNode,
)

if TYPE_CHECKING:
    from langgraph.types import StreamMode, StreamPart

    from agent.graph import AgentGraph

__all__ = ("STREAM_MODES", "GraphEvent", "StreamTranslator", "read_topology")

STREAM_MODES: list[StreamMode] = ["tasks", "checkpoints", "custom"]

GraphEvent = NodeStarted | NodeCompleted | TokenDelta | CostUpdated


def read_topology(graph: AgentGraph, session_id: str) -> GraphTopology:
    """The agent's nodes and edges as the compiled graph describes them (start and end markers left out)."""
    drawable = graph.get_graph()
    inner = {node_id for node_id in drawable.nodes if not node_id.startswith("__")}
    return GraphTopology(
        session_id=session_id,
        nodes=[
            TopologyNode(id=node.id, label=(node.metadata or {}).get("label", node.id))
            for node in drawable.nodes.values()
            if node.id in inner
        ],
        edges=[
            TopologyEdge(source=edge.source, target=edge.target, conditional=edge.conditional)
            for edge in drawable.edges
            if edge.source in inner and edge.target in inner
        ],
    )


class StreamTranslator:
    """Stateful over one ``astream`` call: remembers each task's step and which node is running or failed."""

    def __init__(self) -> None:
        self._steps: dict[str, int] = {}
        self.running_node: str | None = None
        self.failed_node: str | None = None

    def translate(self, part: StreamPart[Any, Any]) -> GraphEvent | None:
        kind = part["type"]
        data: Any = part["data"]
        if kind == "custom":
            return data if isinstance(data, TokenDelta | CostUpdated) else None
        if kind == "checkpoints":
            step = data["metadata"]["step"] + 1
            self._steps.update((task["id"], step) for task in data["tasks"])
            return None
        if kind != "tasks":
            return None
        step = self._steps.get(data["id"], 0)
        if "triggers" in data:
            self.running_node = data["name"]
            return NodeStarted(node=data["name"], step=step)
        self.running_node = None
        if data["error"] is not None:
            self.failed_node = data["name"]
            return None
        if data["interrupts"]:
            return None
        entry = (data["result"] or {}).get("trace", [None])[-1]
        if entry is None:
            return None
        return NodeCompleted(
            node=data["name"],
            step=step,
            latency_ms=entry["latency_ms"],
            outcome=entry["outcome"],
            summary=entry["summary"],
        )
