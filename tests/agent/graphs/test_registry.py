"""The graphs the service serves: the support agent always, a config's graphs beside it, each found by graph id or
by the assistant id the LangGraph Agent Server gives it."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest

from agent.config import ConfigError
from agent.graphs import (
    ASSISTANT_NAMESPACE,
    GraphRegistry,
    RegisteredGraph,
    ThreadTtl,
    assistant_id_of,
    open_registry,
)
from agent.graphs.registry import SUPPORT_DESCRIPTION
from tests.support.graph_projects import support_of, write_project

if TYPE_CHECKING:
    from pathlib import Path

    from agent import Agent

GRAPHS = {
    "named.py": """
        import os

        from langgraph.graph import START, StateGraph
        from typing_extensions import TypedDict

        SHOP = os.environ["SHOP_NAME"]  # the config's env is applied before the module is imported


        class State(TypedDict):
            n: int


        builder = StateGraph(State)
        builder.add_node("bump", lambda state: {"n": state["n"] + 1})
        builder.add_edge(START, "bump")
        graph = builder.compile(name="Counter")
        unnamed = builder.compile()
    """,
    "langgraph.json": {
        "graphs": {
            "counter": {"path": "./named.py:graph", "description": "Counts one up."},
            "plain": "./named.py:unnamed",
        },
        "env": {"SHOP_NAME": "Nimbus"},
    },
}


def test_the_assistant_id_is_the_agent_servers() -> None:
    assert assistant_id_of("agent") == "fe096781-5601-53d2-b2f6-0d3403f7e9ca"
    assert ASSISTANT_NAMESPACE != uuid.NAMESPACE_OID
    assert assistant_id_of("support") == str(uuid.uuid5(uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), "support"))


async def test_without_a_config_the_support_agent_is_the_one_graph_and_the_default(agent: Agent) -> None:
    registry = await open_registry(None, **support_of(agent))

    (support,) = registry
    assert registry.thread_ttl is None
    assert registry.default is support
    assert (support.graph_id, support.name, support.description) == ("support", "support_agent", SUPPORT_DESCRIPTION)
    assert support.assistant_id == assistant_id_of("support")
    assert not support.is_factory
    async with support.graph_for({"configurable": {"thread_id": "s_1"}}) as graph:
        assert graph is agent.graph


async def test_a_configs_graphs_are_served_beside_the_support_agent(agent: Agent, tmp_path: Path) -> None:
    path = write_project(tmp_path, GRAPHS)

    registry = await open_registry(path, **support_of(agent))

    assert registry.graph_ids == ["support", "counter", "plain"]
    assert registry.default.graph_id == "counter"
    counter, plain = registry["counter"], registry["plain"]
    assert (counter.name, counter.description) == ("Counter", "Counts one up.")
    assert (plain.name, plain.description) == ("plain", None)
    assert [node.id for node in counter.topology.nodes] == ["bump"]
    assert counter.schemas.input_schema is not None
    assert counter.schemas.input_schema["properties"] == {"n": {"title": "N", "type": "integer"}}


async def test_a_graph_is_found_by_graph_id_or_assistant_id_in_any_spelling(agent: Agent, tmp_path: Path) -> None:
    registry = await open_registry(write_project(tmp_path, GRAPHS), **support_of(agent))
    counter = registry["counter"]

    assert registry.get(counter.assistant_id) is counter
    assert registry.get(counter.assistant_id.upper()) is counter
    assert registry.get(uuid.UUID(counter.assistant_id).hex) is counter
    assert registry.get("nothing") is None
    assert registry.get(str(uuid.uuid4())) is None
    assert "counter" in registry
    assert "nothing" not in registry
    with pytest.raises(KeyError):
        registry["nothing"]


async def test_a_config_may_not_take_the_support_agents_id(agent: Agent, tmp_path: Path) -> None:
    path = write_project(tmp_path, {"langgraph.json": {"graphs": {"support": "./mine.py:graph"}}})

    with pytest.raises(ConfigError, match="graph id 'support' is the built-in support agent's"):
        await open_registry(path, **support_of(agent))


def test_a_registry_holds_each_id_once_and_at_least_one_graph(agent: Agent) -> None:
    support = RegisteredGraph("support", agent.graph)

    with pytest.raises(ConfigError, match=r"graph id 'support' .* is registered twice"):
        GraphRegistry([support, RegisteredGraph("support", agent.graph)])
    with pytest.raises(ConfigError, match="at least one graph"):
        GraphRegistry([])


async def test_the_configs_thread_ttl_is_the_registrys(agent: Agent, tmp_path: Path) -> None:
    ttl = {"strategy": "delete", "default_ttl": 30, "sweep_interval_minutes": 5}
    config = {"graphs": {"counter": "./named.py:graph"}, "env": {"SHOP_NAME": "Nimbus"}, "checkpointer": {"ttl": ttl}}
    path = write_project(tmp_path, {"named.py": str(GRAPHS["named.py"]), "langgraph.json": config})

    registry = await open_registry(path, **support_of(agent))

    assert registry.thread_ttl == ThreadTtl(default_ttl=30, sweep_interval_minutes=5)
