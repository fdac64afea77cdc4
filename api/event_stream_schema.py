"""How an OpenAPI 3.1 document describes an SSE body so both kinds of tools read it right.

OpenAPI 3.2 has ``itemSchema`` for one event of a stream; 3.1, which Litestar writes and client generators
read, has only ``schema``. SSE-aware tools (schemathesis) read a 3.1 ``schema`` as one event; generators
(openapi-python-client, openapi-typescript) read it as the whole body, and a body that is an object would
make them parse the stream's text as JSON. So the stream's schema is one of: a string (the whole body, what
a generic client gets) or one event (what a tool validating event by event checks). See docs/adr.
"""

from __future__ import annotations

from typing import Any

__all__ = ("event_stream_schema",)


def event_stream_schema(title: str, event_ref: str, description: str) -> dict[str, Any]:
    return {
        "title": title,
        "description": (
            f"{description} Read whole, the body is text; read event by event, each event is the referenced "
            "object (OpenAPI 3.1 has no `itemSchema` to say the second alone)."
        ),
        "oneOf": [{"type": "string", "contentMediaType": "text/event-stream"}, {"$ref": event_ref}],
    }
