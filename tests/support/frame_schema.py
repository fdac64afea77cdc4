"""Every SSE frame the tests see is checked against the committed JSON Schema of the envelope."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

__all__ = ("envelope_problems", "frame_problems")

ENVELOPE_SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "envelope.json"


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(ENVELOPE_SCHEMA.read_text()))


def frame_problems(frame: bytes) -> list[str]:
    """Why ``frame`` (without its closing blank line) breaks the contract; empty when it does not."""
    if frame.startswith((b":", b"retry: ")):
        return []
    fields: dict[str, str] = {}
    for line in frame.decode().split("\n"):
        name, _, value = line.partition(": ")
        fields[name] = value
    if set(fields) != {"id", "event", "data"}:
        return [f"a frame has the lines id, event and data, got {sorted(fields)}"]
    envelope = json.loads(fields["data"])
    problems = envelope_problems(fields["event"], fields["data"].encode())

    if fields["id"] != f"{envelope.get('run_id')}:{envelope.get('seq')}":
        problems.append(f"id {fields['id']!r} is not <run_id>:<seq>")
    return problems


def envelope_problems(kind: str, data: bytes) -> list[str]:
    """Why ``data``, an envelope logged as event ``kind``, breaks the contract; empty when it does not."""
    envelope = json.loads(data)
    problems = [
        f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}" for e in _validator().iter_errors(envelope)
    ]
    if kind != envelope.get("type"):
        problems.append(f"event {kind!r} is not the envelope's type {envelope.get('type')!r}")
    return problems
