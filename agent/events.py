"""Translates LangGraph's v2 stream parts into contract event payloads. The only module that reads them.

Everything a turn streams comes as ``custom`` parts, what nodes wrote with ``get_stream_writer()``: a node's
start and completion (``agent.instrument``), token deltas and cost (``generate_answer``).
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

STREAM_MODES: list[StreamMode] = ["custom"]

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
    """Stateful over one ``astream`` call: remembers which node is running (the one an error or a cancel hits)."""

    def __init__(self) -> None:
        self.running_node: str | None = None

    def translate(self, part: StreamPart[Any, Any]) -> GraphEvent | None:
        data: Any = part["data"]
        if data.__class__ is TokenDelta:  # nearly every part of a turn
            return data
        if part["type"] != "custom" or not isinstance(data, GraphEvent):
            return None
        if isinstance(data, NodeStarted):
            self.running_node = data.node
        elif isinstance(data, NodeCompleted):
            self.running_node = None
        return data
