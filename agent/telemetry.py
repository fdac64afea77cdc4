"""OpenTelemetry set-up: spans for every graph run, node, model call, tool, retrieval and guardrail decision.

The spans follow the OpenTelemetry GenAI semantic conventions where one applies (``agent.gen_ai``). No
exporter by default. ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, or
``OTEL_TRACES_EXPORTER=otlp``) ships them over OTLP/HTTP (protobuf); ``OTEL_TRACES_EXPORTER=console``
prints them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("SERVICE_NAME", "TRACER_NAME", "create_tracer_provider")

SERVICE_NAME = "agent-harness"
TRACER_NAME = "agent"
_TRACES_PATH = "v1/traces"


def create_tracer_provider(environ: Mapping[str, str] | None = None) -> TracerProvider:
    env = os.environ if environ is None else environ
    provider = TracerProvider(resource=Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", SERVICE_NAME)}))
    exporter = _exporter(env)
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _exporter(env: Mapping[str, str]) -> SpanExporter | None:
    choice = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    endpoint = _traces_endpoint(env)
    if not choice and endpoint:
        choice = "otlp"
    if choice == "console":
        return ConsoleSpanExporter()
    if choice == "otlp":
        otlp: SpanExporter = OTLPSpanExporter(endpoint=endpoint)
        return otlp
    return None


def _traces_endpoint(env: Mapping[str, str]) -> str | None:
    """The traces URL the specification derives: the signal's own variable as is, else the base + v1/traces.

    Read from ``env`` rather than left to the exporter, which reads only the process environment."""
    own = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if own:
        return own
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if not base:
        return None
    return base if base.endswith(_TRACES_PATH) else f"{base.rstrip('/')}/{_TRACES_PATH}"
