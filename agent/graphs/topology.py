"""The topology of any compiled graph, in the contract's ``GraphTopology``.

It is LangGraph's own drawing (``get_graph``), conditional edges and cycles included, with the nodes of
subgraphs drawn where LangGraph can see them (``xray``): a subgraph node ``step`` becomes its inner nodes
``step:search``, ``step:write`` (nested ones ``outer:inner:node``), the same ids the node events of a run
name. A graph LangGraph cannot draw with ``xray`` (a subgraph called from inside a node it cannot inspect
raises for some) is drawn without it. The start and end markers are left out. A label is the node's ``label``
metadata, else its name. The support agent's topology is this too, the same for every run of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from contracts import GraphTopology, TopologyEdge, TopologyNode

if TYPE_CHECKING:
    from langchain_core.runnables.graph import Graph

    from agent.graphs.compiled import CompiledGraph

__all__ = ("graph_topology", "node_roles")


def graph_topology(graph: CompiledGraph, session_id: str = "") -> GraphTopology:
    """The nodes and edges of ``graph``; ``session_id`` fills the contract's field (runs name their session)."""
    drawable = _drawn(graph)
    inner = {node_id for node_id in drawable.nodes if not _is_marker(node_id)}
    return GraphTopology(
        session_id=session_id,
        nodes=[
            TopologyNode(id=node.id, label=str((node.metadata or {}).get("label", node.name)))
            for node in drawable.nodes.values()
            if node.id in inner
        ],
        edges=[
            TopologyEdge(source=edge.source, target=edge.target, conditional=edge.conditional)
            for edge in drawable.edges
            if edge.source in inner and edge.target in inner
        ],
    )


def _drawn(graph: CompiledGraph) -> Graph:
    try:
        return graph.get_graph(xray=True)
    except Exception:
        return graph.get_graph()


def _is_marker(node_id: str) -> bool:
    """``__start__`` and ``__end__``, and a subgraph's own (``step:__start__``)."""
    return node_id.rpartition(":")[2].startswith("__")


def node_roles(graph: CompiledGraph) -> dict[str, str]:
    """The nodes of ``graph`` that declare a ``role`` in their metadata (what a chat UI reads from them: an
    ``approval``, an ``action``), by the ids the topology draws."""
    roles: dict[str, str] = {}
    for node in _drawn(graph).nodes.values():
        role = (node.metadata or {}).get("role")
        if isinstance(role, str) and not _is_marker(node.id):
            roles[node.id] = role
    return roles
