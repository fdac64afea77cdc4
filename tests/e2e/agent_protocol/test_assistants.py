"""Assistants through langgraph-sdk: one per registered graph, with the ids the LangGraph Agent Server gives them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from langgraph_sdk.errors import NotFoundError

from tests.e2e.agent_protocol.turns import agent_server_id

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient


async def test_search_lists_every_graph_with_the_agent_servers_ids(sdk: LangGraphClient) -> None:
    assistants = await sdk.assistants.search()

    by_graph = {assistant["graph_id"]: assistant for assistant in assistants}
    assert sorted(by_graph) == ["react_agent", "research", "support"]
    for graph_id, assistant in by_graph.items():
        assert assistant["assistant_id"] == agent_server_id(graph_id), graph_id
        assert assistant["metadata"] == {"created_by": "system"}
    assert by_graph["research"]["description"] == (
        "Plans the subjects of a topic, researches each in a subgraph, and writes a report."
    )
    only = await sdk.assistants.search(graph_id="react_agent")
    assert [assistant["graph_id"] for assistant in only] == ["react_agent"]


async def test_an_assistant_is_found_by_its_id_or_its_graph_id(sdk: LangGraphClient) -> None:
    by_id = await sdk.assistants.get(agent_server_id("research"))
    by_graph = await sdk.assistants.get("research")

    assert by_id == by_graph
    assert by_id["graph_id"] == "research"
    with pytest.raises(NotFoundError) as missing:
        await sdk.assistants.get("no_such_graph")
    assert missing.value.code == "assistant_not_found"


async def test_the_graph_is_drawn_with_its_nodes_and_subgraphs_on_request(sdk: LangGraphClient) -> None:
    react = await sdk.assistants.get_graph(agent_server_id("react_agent"))
    flat = await sdk.assistants.get_graph("research")
    deep = await sdk.assistants.get_graph("research", xray=True)

    assert {node["id"] for node in react["nodes"]} == {"__start__", "agent", "tools", "__end__"}
    assert {(edge["source"], edge["target"]) for edge in react["edges"]} >= {("__start__", "agent"), ("tools", "agent")}
    assert "research_step" in {node["id"] for node in flat["nodes"]}
    assert {"research_step:search", "research_step:summarize"} <= {node["id"] for node in deep["nodes"]}


async def test_the_schemas_describe_each_graphs_state(sdk: LangGraphClient) -> None:
    react = await sdk.assistants.get_schemas(agent_server_id("react_agent"))
    research = await sdk.assistants.get_schemas("research")

    assert react["graph_id"] == "react_agent"
    assert "messages" in react["input_schema"]["properties"]
    assert research["graph_id"] == "research"
    assert {"topic", "plan", "notes", "report"} <= set(research["state_schema"]["properties"])
    assert "topic" in research["input_schema"]["properties"]
