"""MCP (Streamable HTTP) for every registered graph: one tool per graph, each call a durable run like any other.
docs/mcp.md."""

from __future__ import annotations

from api.mcp.calls import MCP_MODES, PROTOCOL_VERSIONS, SESSION_HEADER, McpCalls, thread_of_call
from api.mcp.jsonrpc import InternalError, McpError, error_body, read_message
from api.mcp.stream import ToolCallProjection
from api.mcp.tools import tool_list

__all__ = (
    "MCP_MODES",
    "PROTOCOL_VERSIONS",
    "SESSION_HEADER",
    "InternalError",
    "McpCalls",
    "McpError",
    "ToolCallProjection",
    "error_body",
    "read_message",
    "thread_of_call",
    "tool_list",
)
