"""Writing docs/ and telling which committed files differ from what the code generates."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

import msgspec

from agent import AgentConfig
from api.app import create_app
from api.auth import AuthConfig
from api.docs.asyncapi import asyncapi_document
from api.docs.events_md import render_events_md
from api.docs.samples import sample_frames
from api.docs.schemas import ENVELOPE_TYPES, envelope_schema, event_schema, event_type_of
from api.openapi import openapi_document
from api.settings import Settings

__all__ = ("generate_docs", "stale_docs", "write_docs")


def generate_docs() -> dict[str, bytes]:
    """Every generated file of docs/, by its path relative to docs/."""
    logging.getLogger("httpx").setLevel(logging.WARNING)  # the sample runs' requests are not news
    samples = asyncio.run(sample_frames())
    with tempfile.TemporaryDirectory() as tmp:
        # the committed document describes the whole contract, identity included: generated with it on
        identity = AuthConfig(jwt_secret="the committed document is generated with identity on", jwt_audience="docs")
        app = create_app(Settings(auth=identity, agent=AgentConfig(data_dir=Path(tmp))))
        openapi = openapi_document(app)
    files = {
        "openapi.json": _json(openapi),
        "events.md": render_events_md(samples).encode(),
        "asyncapi.yaml": msgspec.yaml.encode(asyncapi_document(samples)),
        "schemas/envelope.json": _json(envelope_schema()),
    }
    for envelope_class in ENVELOPE_TYPES:
        files[f"schemas/{event_type_of(envelope_class)}.json"] = _json(event_schema(envelope_class))
    return files


def write_docs(directory: Path) -> list[Path]:
    written = []
    for name, content in generate_docs().items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    return written


def stale_docs(directory: Path) -> list[str]:
    """The generated files that are missing from ``directory`` or differ from what the code generates."""
    return sorted(
        name
        for name, content in generate_docs().items()
        if not (directory / name).is_file() or (directory / name).read_bytes() != content
    )


def _json(value: object) -> bytes:
    return msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n"
