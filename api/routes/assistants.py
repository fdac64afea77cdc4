"""The Agent Protocol's assistants: one per registered graph (``/assistants/search``, ``/assistants/{id}``, its
graph and schemas). They are read-only: a graph is registered by the service's ``langgraph.json``."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody, QueryParameter

from agent.graphs import GraphRegistry
from api.agent_protocol.views import assistant_view, schema_view
from api.graph_runs import graph_named
from api.openapi import problem_responses
from api.runs.registry import RunRegistry
from contracts.agent_protocol import Assistant, AssistantSearch, GraphSchema

__all__ = ("get_assistant", "get_assistant_graph", "get_assistant_schemas", "search_assistants")

TAG = "agent-protocol"


@post(
    "/assistants/search",
    operation_id="searchAssistants",
    tags=[TAG],
    status_code=200,
    summary="The assistants: one per registered graph",
    responses=problem_responses(401, 413, 415, 422),
)
async def search_assistants(
    data: JSONBody[AssistantSearch], runs: NamedDependency[RunRegistry], graphs: NamedDependency[GraphRegistry]
) -> list[Assistant]:
    found = [
        assistant_view(registered, runs.started_at)
        for registered in graphs
        if (data.graph_id is None or registered.graph_id == data.graph_id)
        and (data.name is None or data.name.lower() in registered.name.lower())
        and _contains({"created_by": "system"}, data.metadata or {})
    ]
    if data.sort_by is not None:
        found.sort(key=lambda assistant: getattr(assistant, data.sort_by or "name"), reverse=data.sort_order == "desc")
    return found[data.offset : data.offset + data.limit]


@get(
    "/assistants/{assistant_id:str}",
    operation_id="getAssistant",
    tags=[TAG],
    summary="An assistant, by its id or its graph id",
    responses=problem_responses(401, 404),
)
async def get_assistant(
    assistant_id: FromPath[str], runs: NamedDependency[RunRegistry], graphs: NamedDependency[GraphRegistry]
) -> Assistant:
    return assistant_view(graph_named(graphs, assistant_id), runs.started_at)


@get(
    "/assistants/{assistant_id:str}/graph",
    operation_id="getAssistantGraph",
    tags=[TAG],
    summary="The assistant's graph as LangGraph draws it (nodes and edges)",
    responses=problem_responses(401, 404, 422),
)
async def get_assistant_graph(
    assistant_id: FromPath[str],
    graphs: NamedDependency[GraphRegistry],
    xray: Annotated[
        str,
        QueryParameter(
            description="`true`, `false`, or how many subgraph levels to draw",
            pattern=r"^(true|false|True|False|[0-9]{1,2})$",
        ),
    ] = "false",
) -> dict[str, Any]:
    registered = graph_named(graphs, assistant_id)
    levels: bool | int = int(xray) if xray.isdigit() else xray.lower() == "true"
    async with registered.graph_for({"configurable": {}}) as graph:
        drawn = graph.get_graph(xray=levels).to_json()
    for node in drawn.get("nodes", []):
        if isinstance(node.get("data"), dict):
            node["data"].pop("id", None)
    return drawn


@get(
    "/assistants/{assistant_id:str}/schemas",
    operation_id="getAssistantSchemas",
    tags=[TAG],
    summary="The JSON schemas of the assistant's input, output, state, config and context",
    responses=problem_responses(401, 404),
)
async def get_assistant_schemas(assistant_id: FromPath[str], graphs: NamedDependency[GraphRegistry]) -> GraphSchema:
    return schema_view(graph_named(graphs, assistant_id))


def _contains(metadata: dict[str, Any], wanted: dict[str, Any]) -> bool:
    return all(metadata.get(key) == value for key, value in wanted.items())
