"""JSON Schemas of the events, straight from the contract Structs (msgspec generates them)."""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from contracts import Envelope

__all__ = ("ENVELOPE_TYPES", "envelope_schema", "event_schema", "event_type_of")

ENVELOPE_TYPES: tuple[type[Any], ...] = get_args(Envelope)
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def event_type_of(envelope_class: type[Any]) -> str:
    tag = envelope_class.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def envelope_schema() -> dict[str, Any]:
    """The envelope union: any event of the stream, discriminated by ``type``."""
    return {"$schema": _DIALECT, "$id": "envelope.json", "title": "Envelope", **msgspec.json.schema(Envelope)}


def event_schema(envelope_class: type[Any]) -> dict[str, Any]:
    """A standalone schema of one event type."""
    kind = event_type_of(envelope_class)
    return {"$schema": _DIALECT, "$id": f"{kind}.json", **msgspec.json.schema(envelope_class)}
