"""The topology of any compiled graph, and the support agent's exactly as it has always been drawn."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from agent.graphs import graph_topology
from contracts import GraphTopology, TopologyEdge, TopologyNode

if TYPE_CHECKING:
    import pytest

    from agent import Agent

EVENTS_DOC = Path(__file__).resolve().parents[3] / "docs" / "events.md"


class State(TypedDict, total=False):
    n: int


def step(state: State) -> State:
    return {"n": state.get("n", 0) + 1}


def loop() -> Any:
    inner = StateGraph(State)
    inner.add_node("first", step)
    inner.add_node("second", step)
    inner.add_edge(START, "first")
    inner.add_edge("first", "second")
    inner.add_edge("second", END)
    outer = StateGraph(State)
    outer.add_node("decide", step, metadata={"label": "Decide"})
    outer.add_node("work", inner.compile())
    outer.add_edge(START, "decide")
    outer.add_conditional_edges("decide", lambda state: "work" if state["n"] < 5 else END, ["work", END])
    outer.add_edge("work", "decide")
    return outer.compile()


def test_the_support_agents_topology_is_the_one_its_runs_always_sent(agent: Agent) -> None:
    documented = re.search(r'^data: (\{"type":"graph_topology".*\})$', EVENTS_DOC.read_text(), re.MULTILINE)
    assert documented is not None
    frame = msgspec.json.decode(documented.group(1))

    topology = graph_topology(agent.graph, frame["data"]["session_id"])

    assert msgspec.json.decode(msgspec.json.encode(topology)) == frame["data"]


def test_subgraph_nodes_are_drawn_namespaced_with_the_cycle_and_the_conditional_edges() -> None:
    topology = graph_topology(loop(), "s_1")

    assert topology == GraphTopology(
        session_id="s_1",
        nodes=[
            TopologyNode(id="decide", label="Decide"),
            TopologyNode(id="work:first", label="first"),
            TopologyNode(id="work:second", label="second"),
        ],
        edges=[
            TopologyEdge(source="decide", target="work:first", conditional=True),
            TopologyEdge(source="work:second", target="decide", conditional=False),
            TopologyEdge(source="work:first", target="work:second", conditional=False),
        ],
    )


def test_a_graph_that_cannot_be_drawn_with_xray_is_drawn_without(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = loop()
    plain = type(graph).get_graph

    def no_xray(self: Any, config: Any = None, *, xray: int | bool = False) -> Any:
        if xray:
            raise ValueError("cannot look inside")
        return plain(self, config, xray=xray)

    monkeypatch.setattr(type(graph), "get_graph", no_xray)

    topology = graph_topology(graph)

    assert [node.id for node in topology.nodes] == ["decide", "work"]
    assert TopologyEdge(source="work", target="decide", conditional=False) in topology.edges
