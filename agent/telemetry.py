"""OpenTelemetry set-up: spans for every node, model call, retrieval and guardrail decision.

No exporter by default. ``OTEL_TRACES_EXPORTER=console`` prints spans; ``otlp`` (or an
``OTEL_EXPORTER_OTLP_ENDPOINT``) ships them with the OTLP/HTTP exporter of the ``otlp`` extra.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("SERVICE_NAME", "TRACER_NAME", "create_tracer_provider")

SERVICE_NAME = "agent-harness"
TRACER_NAME = "agent"


def create_tracer_provider(environ: Mapping[str, str] | None = None) -> TracerProvider:
    env = os.environ if environ is None else environ
    provider = TracerProvider(resource=Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", SERVICE_NAME)}))
    exporter = _exporter(env)
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _exporter(env: Mapping[str, str]) -> SpanExporter | None:
    choice = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if not choice and env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        choice = "otlp"
    if choice == "console":
        return ConsoleSpanExporter()
    if choice == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise RuntimeError(
                "OTEL_TRACES_EXPORTER=otlp needs the OTLP exporter: pip install 'agent-harness[otlp]'"
            ) from exc
        exporter: SpanExporter = OTLPSpanExporter()
        return exporter
    return None
