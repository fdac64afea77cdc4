"""An assistant's A2A agent card: who it is, where its JSON-RPC endpoint is, what it can do and how to sign in.

One skill, the graph: its id, its name, its description, and its input schema (in the skill's description, and
whole in the card's ``graph-schemas`` extension with its output schema) so that a calling agent knows whether to
send text (a graph that takes ``messages``) or a data part. The security scheme is the service's: a bearer token
when identity is on (a JWT when it verifies signed tokens), none when it is off.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING, Any

import msgspec

from api.a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    HttpAuthSecurityScheme,
    SecurityScheme,
)
from api.chat_runs import takes_messages

if TYPE_CHECKING:
    from agent.graphs import RegisteredGraph

__all__ = ("PROTOCOL_VERSION", "SCHEMAS_EXTENSION", "a2a_path", "agent_card")

PROTOCOL_VERSION = "1.0"
SCHEMAS_EXTENSION = "urn:agent-harness:a2a:graph-schemas:v1"
"""The card's extension whose ``params`` are the graph's ``inputSchema`` and ``outputSchema`` (JSON Schema)."""
_TEXT, _JSON = "text/plain", "application/json"


def a2a_path(registered: RegisteredGraph) -> str:
    return f"/a2a/{registered.graph_id}"


def agent_card(registered: RegisteredGraph, *, base_url: str, bearer: str | None) -> AgentCard:
    """The card of ``registered`` served at ``base_url``; ``bearer``: the tokens' format when identity is on
    (``JWT``, or ``""`` for opaque tokens), None when it is off."""
    schemas = registered.schemas
    chat = takes_messages(registered)
    description = registered.description or f"The LangGraph graph {registered.graph_id!r}."
    skill = AgentSkill(
        id=registered.graph_id,
        name=registered.name,
        description=f"{description} {_takes(registered, schemas.input_schema, chat)}",
        tags=["langgraph", registered.graph_id],
        input_modes=[_TEXT, _JSON] if chat else [_JSON],
        output_modes=[_TEXT, _JSON],
    )
    extension = AgentExtension(
        uri=SCHEMAS_EXTENSION,
        description="The graph's input and output as JSON Schema.",
        params={"inputSchema": schemas.input_schema, "outputSchema": schemas.output_schema},
    )
    card = AgentCard(
        name=registered.graph_id,
        description=description,
        supported_interfaces=[
            AgentInterface(
                url=base_url.rstrip("/") + a2a_path(registered),
                protocol_binding="JSONRPC",
                protocol_version=PROTOCOL_VERSION,
            )
        ],
        version=_version(),
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=False, extended_agent_card=False, extensions=[extension]
        ),
        default_input_modes=skill.input_modes,
        default_output_modes=skill.output_modes,
        skills=[skill],
    )
    if bearer is None:
        return card
    scheme = HttpAuthSecurityScheme(
        scheme="Bearer", bearer_format=bearer, description="The service's bearer token, as on every route."
    )
    return msgspec.structs.replace(
        card,
        security_schemes={"bearer": SecurityScheme(http_auth_security_scheme=scheme)},
        security_requirements=[{"schemes": {"bearer": {"list": []}}}],
    )


def _takes(registered: RegisteredGraph, schema: dict[str, Any] | None, chat: bool) -> str:
    properties = sorted(((schema or {}).get("properties") or {}).keys())
    keys = ", ".join(properties) if properties else "none declared"
    if chat:
        return f"Send text (a chat message), or a data part with its input (keys: {keys})."
    return f"Send a data part, a JSON object with its input (keys: {keys})."


def _version() -> str:
    try:
        return metadata.version("agent-harness")
    except metadata.PackageNotFoundError:
        return "0"
