"""``harness docs``: the generated contract documents in docs/, all from the code.

docs/openapi.json      the OpenAPI 3.1 document the app serves at /schema/openapi.json
docs/events.md         every SSE event: when it is sent, its fields, a real example frame, the rules
docs/schemas/*.json    a JSON Schema per event type, and one for the envelope union
docs/asyncapi.yaml     the SSE channels as an AsyncAPI 3.0 document
"""

from __future__ import annotations

from api.docs.generate import generate_docs, stale_docs, write_docs

__all__ = ("generate_docs", "stale_docs", "write_docs")
