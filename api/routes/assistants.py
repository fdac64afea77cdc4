"""The Agent Protocol's assistants: one per registered graph (``/assistants/search``, ``/assistants/{id}``, its
graph and schemas). They are read-only: a graph is registered by the service's ``langgraph.json``. With its
``auth.path``, an assistant whose metadata the ``@auth.on.assistants`` handler's filter excludes is not found."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from litestar import Request, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, QueryParameter

from agent.graphs import GraphRegistry, RegisteredGraph
from api.agent_protocol.views import assistant_view, schema_view
from api.auth.authorization import decision_of
from api.exceptions import AssistantNotFound
from api.graph_runs import graph_named
from api.openapi import problem_responses
from api.runs.metadata_filter import matches
from api.runs.registry import RunRegistry
from contracts.agent_protocol import Assistant, AssistantSearch, GraphSchema

__all__ = ("get_assistant", "get_assistant_graph", "get_assistant_schemas", "search_assistants")

TAG = "agent-protocol"


def _visible(
    request: Request[Any, Any, Any],
    assistant_id: FromPath[str],
    graphs: NamedDependency[GraphRegistry],
    runs: NamedDependency[RunRegistry],
) -> RegisteredGraph:
    """The graph the path names, unless langgraph.json's auth filters its assistant out (404, as no such one)."""
    registered = graph_named(graphs, assistant_id)
    decision = decision_of(request.scope)
    if decision is not None and not matches(assistant_view(registered, runs.started_at).metadata or {}, decision.where):
        raise AssistantNotFound(f"There is no assistant {assistant_id!r}.")
    return registered


_of_an_assistant = partial(get, tags=[TAG], dependencies={"assistant": Provide(_visible, sync_to_thread=False)})
"""A route of one assistant: given ``assistant``, the graph its path names, as the caller may see it."""


@post(
    "/assistants/search",
    operation_id="searchAssistants",
    tags=[TAG],
    status_code=200,
    summary="The assistants: one per registered graph",
    responses=problem_responses(401, 413, 415, 422),
)
async def search_assistants(
    request: Request[Any, Any, Any],
    data: JSONBody[AssistantSearch],
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
) -> list[Assistant]:
    decision = decision_of(request.scope)
    found = [
        assistant_view(registered, runs.started_at)
        for registered in graphs
        if (data.graph_id is None or registered.graph_id == data.graph_id)
        and (data.name is None or data.name.lower() in registered.name.lower())
        and _contains({"created_by": "system"}, data.metadata or {})
    ]
    found = [assistant for assistant in found if decision is None or matches(assistant.metadata or {}, decision.where)]
    if data.sort_by is not None:
        found.sort(key=lambda assistant: getattr(assistant, data.sort_by or "name"), reverse=data.sort_order == "desc")
    return found[data.offset : data.offset + data.limit]


@_of_an_assistant(
    "/assistants/{assistant_id:str}",
    operation_id="getAssistant",
    summary="An assistant, by its id or its graph id",
    responses=problem_responses(401, 404),
)
async def get_assistant(assistant: NamedDependency[RegisteredGraph], runs: NamedDependency[RunRegistry]) -> Assistant:
    return assistant_view(assistant, runs.started_at)


@_of_an_assistant(
    "/assistants/{assistant_id:str}/graph",
    operation_id="getAssistantGraph",
    summary="The assistant's graph as LangGraph draws it (nodes and edges)",
    responses=problem_responses(401, 404, 422),
)
async def get_assistant_graph(
    assistant: NamedDependency[RegisteredGraph],
    xray: Annotated[
        str,
        QueryParameter(
            description="`true`, `false`, or how many subgraph levels to draw",
            pattern=r"^(true|false|True|False|[0-9]{1,2})$",
        ),
    ] = "false",
) -> dict[str, Any]:
    levels: bool | int = int(xray) if xray.isdigit() else xray.lower() == "true"
    async with assistant.graph_for({"configurable": {}}) as graph:
        drawn = graph.get_graph(xray=levels).to_json()
    for node in drawn.get("nodes", []):
        if isinstance(node.get("data"), dict):
            node["data"].pop("id", None)
    return drawn


@_of_an_assistant(
    "/assistants/{assistant_id:str}/schemas",
    operation_id="getAssistantSchemas",
    summary="The JSON schemas of the assistant's input, output, state, config and context",
    responses=problem_responses(401, 404),
)
async def get_assistant_schemas(assistant: NamedDependency[RegisteredGraph]) -> GraphSchema:
    return schema_view(assistant)


def _contains(metadata: dict[str, Any], wanted: dict[str, Any]) -> bool:
    return all(metadata.get(key) == value for key, value in wanted.items())
