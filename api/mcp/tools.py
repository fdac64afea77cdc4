"""One MCP tool per registered graph: named by its graph id, its input schema the graph's input schema, its output
schema the graph's output schema (MCP asks for object schemas: a graph's state is one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.graphs import GraphRegistry, RegisteredGraph

__all__ = ("tool_list", "tool_of")

_ANY_OBJECT: dict[str, Any] = {"type": "object"}


def tool_of(registered: RegisteredGraph) -> dict[str, Any]:
    schemas = registered.schemas
    tool: dict[str, Any] = {
        "name": registered.graph_id,
        "title": registered.name,
        "description": registered.description or f"Runs the LangGraph graph {registered.graph_id!r} to its end.",
        "inputSchema": _object(schemas.input_schema),
    }
    if schemas.output_schema and schemas.output_schema.get("type") == "object":
        tool["outputSchema"] = schemas.output_schema
    return tool


def tool_list(graphs: GraphRegistry) -> list[dict[str, Any]]:
    return [tool_of(registered) for registered in graphs]


def _object(schema: dict[str, Any] | None) -> dict[str, Any]:
    return schema if schema and schema.get("type") == "object" else _ANY_OBJECT
