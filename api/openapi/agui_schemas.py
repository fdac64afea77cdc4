"""JSON Schemas of the AG-UI events ``POST /ag-ui`` and ``POST /ag-ui/{assistant_id}`` send, from the official
package's own models.

They join the OpenAPI document's components under an ``AgUi`` prefix (``AgUiRunStartedEvent``, ...), with
``AgUiEvent`` (one of them, by ``type``), ``AgUiServerSentEvent`` (one SSE event carrying one of them) and
``AgUiEventStream`` (the response body).
"""

from __future__ import annotations

from typing import Any

from ag_ui import core as agui
from pydantic.json_schema import models_json_schema

from api.event_stream_schema import event_stream_schema

__all__ = ("EMITTED_EVENTS", "agui_schemas")

EMITTED_EVENTS = (
    agui.RunStartedEvent,
    agui.StepStartedEvent,
    agui.StepFinishedEvent,
    agui.TextMessageStartEvent,
    agui.TextMessageContentEvent,
    agui.TextMessageEndEvent,
    agui.ToolCallStartEvent,
    agui.ToolCallArgsEvent,
    agui.ToolCallEndEvent,
    agui.ToolCallResultEvent,
    agui.StateSnapshotEvent,
    agui.CustomEvent,
    agui.RunFinishedEvent,
    agui.RunErrorEvent,
)
"""Every AG-UI event type this service emits (tool calls and state snapshots on a registered graph's runs); others
(state deltas, reasoning, messages snapshots) it never sends."""

_PREFIX = "AgUi"


def agui_schemas(ref_template: str) -> dict[str, Any]:
    """Component schemas for the AG-UI events, their stream, and what they reference."""
    template = ref_template.replace("{name}", _PREFIX + "{model}")
    _, top = models_json_schema(
        [(event, "serialization") for event in EMITTED_EVENTS], by_alias=True, ref_template=template
    )
    components = {_PREFIX + name: schema for name, schema in top["$defs"].items()}
    components[_PREFIX + "Event"] = {
        "title": "AgUiEvent",
        "description": "One AG-UI 1.0 event, discriminated by `type` (see docs/ag-ui.md).",
        "oneOf": [{"$ref": template.format(model=event.__name__)} for event in EMITTED_EVENTS],
    }
    components[_PREFIX + "ServerSentEvent"] = {
        "title": "AgUiServerSentEvent",
        "description": "One event of the AG-UI stream: a `data:` line carrying one AG-UI event as JSON.",
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": template.format(model="Event")},
            }
        },
    }
    components[_PREFIX + "EventStream"] = event_stream_schema(
        "AgUiEventStream", template.format(model="ServerSentEvent"), "An AG-UI run as Server-Sent Events."
    )
    return components
