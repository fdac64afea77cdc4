"""docs/asyncapi.yaml: the SSE channels as an AsyncAPI 3.0 document, its schemas from the contract Structs."""

from __future__ import annotations

from typing import Any

import msgspec

from api.app import API_VERSION
from api.docs.schemas import ENVELOPE_TYPES, event_type_of

__all__ = ("asyncapi_document",)

_REF = "#/components/schemas/{name}"
_CHANNELS = {
    "chat": ("/chat", "The stream of a new turn: `POST /chat` with `Accept: text/event-stream`."),
    "chatResume": ("/chat/resume", "The rest of a paused run: `POST /chat/resume` with `Accept: text/event-stream`."),
    "runEvents": (
        "/runs/{runId}/events",
        "A run's events: replay after `Last-Event-ID` (or `?after=`), then the live tail. What `EventSource` "
        "reconnects to.",
    ),
}


def asyncapi_document(samples: dict[str, list[bytes]]) -> dict[str, Any]:
    _, schemas = msgspec.json.schema_components(ENVELOPE_TYPES, ref_template=_REF)
    messages = {_message_name(c): _message(c, samples) for c in ENVELOPE_TYPES}
    channel_messages = {name: {"$ref": f"#/components/messages/{name}"} for name in messages}
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    for channel, (address, description) in _CHANNELS.items():
        channels[channel] = {"address": address, "description": description, "messages": channel_messages}
        if "{runId}" in address:
            channels[channel]["parameters"] = {"runId": {"description": "The run, as `run_id` in responses."}}
        operations[f"receive{channel[0].upper()}{channel[1:]}"] = {
            "action": "receive",
            "channel": {"$ref": f"#/channels/{channel}"},
            "summary": f"Receive the events of {address}.",
            "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in messages],
        }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Agent Harness live run events",
            "version": API_VERSION,
            "description": "Server-Sent Events of agent runs (envelope v1). See docs/events.md for the rules.",
        },
        "servers": {
            "local": {
                "host": "127.0.0.1:8000",
                "protocol": "http",
                "description": "`harness serve` with its defaults; events are Server-Sent Events over HTTP.",
            }
        },
        "defaultContentType": "application/json",
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages, "schemas": schemas},
    }


def _message_name(envelope_class: type[Any]) -> str:
    kind = event_type_of(envelope_class)
    head, *rest = kind.split("_")
    return head + "".join(word.title() for word in rest)


def _message(envelope_class: type[Any], samples: dict[str, list[bytes]]) -> dict[str, Any]:
    kind = event_type_of(envelope_class)
    message: dict[str, Any] = {
        "name": kind,
        "title": kind,
        "summary": " ".join((envelope_class.__doc__ or "").split()),
        "contentType": "application/json",
        "payload": {"$ref": _REF.format(name=envelope_class.__name__)},
    }
    frames = samples.get(kind)
    if frames:
        data = next(line for line in frames[0].split(b"\n") if line.startswith(b"data: "))[6:]
        message["examples"] = [{"name": kind, "payload": msgspec.json.decode(data)}]
    return message
