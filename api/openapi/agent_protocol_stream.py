"""How the Agent Protocol's streams appear in the OpenAPI document: Server-Sent Events of LangGraph's parts.

Each event is named by its stream mode (``metadata`` first, then ``values``, ``updates``, ``messages``, ...,
``custom``, ``error``, ``end``), its ``data`` the part as JSON and its ``id`` the position to reconnect after
(``Last-Event-ID``). ``AgentProtocolServerSentEvent`` describes one event, ``AgentProtocolEventStream`` the body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar.openapi.spec import Example, OpenAPIMediaType, OpenAPIResponse, Operation, Reference

from api.event_stream_schema import event_stream_schema
from api.negotiation import EVENT_STREAM

__all__ = ("AgentProtocolStreamOperation", "agent_protocol_stream_schemas")

_STREAM = "AgentProtocolEventStream"
_EXAMPLE = {"event": "metadata", "id": "1", "data": '{"run_id":"r_0c1d2e3f4a5b6c7d","attempt":1}'}


def agent_protocol_stream_schemas(ref: str) -> dict[str, Any]:
    return {
        "AgentProtocolServerSentEvent": {
            "title": "AgentProtocolServerSentEvent",
            "description": "One event of an Agent Protocol stream: a stream mode's part, as LangGraph gives it.",
            "type": "object",
            "required": ["event", "data"],
            "properties": {
                "event": {
                    "type": "string",
                    "description": "`metadata`, a stream mode (`values`, `updates`, `messages`, ...; a subgraph's "
                    "as `<mode>|<namespace>`), `error` or `end`.",
                },
                "id": {"type": "string", "pattern": "^[0-9]{1,12}$", "description": "Send as `Last-Event-ID`."},
                "data": {"type": "string", "contentMediaType": "application/json"},
            },
        },
        _STREAM: event_stream_schema(
            _STREAM,
            ref.format(name="AgentProtocolServerSentEvent"),
            "A run's stream as the LangGraph SDKs read it (docs/agent-protocol.md).",
        ),
    }


@dataclass
class AgentProtocolStreamOperation(Operation):
    """A route that answers a run's Agent Protocol stream."""

    def __post_init__(self) -> None:
        ok = self.responses["200"] if self.responses else None
        assert isinstance(ok, OpenAPIResponse)
        ok.description = (
            "The run's stream: `metadata`, the parts of the modes asked for, then `end` (after `error` when it "
            "failed). Reconnect with `Last-Event-ID` to the join-stream URL in `Location`."
        )
        ok.content = {
            EVENT_STREAM: OpenAPIMediaType(
                schema=Reference(ref=f"#/components/schemas/{_STREAM}"),
                examples={"metadata": Example(value=_EXAMPLE)},
            )
        }
