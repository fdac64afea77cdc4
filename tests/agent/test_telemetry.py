from __future__ import annotations

import importlib

import pytest
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

from agent.telemetry import create_tracer_provider


def exporters(environ: dict[str, str]) -> list[object]:
    provider = create_tracer_provider(environ)
    processors = provider._active_span_processor._span_processors
    try:
        return [p.span_exporter for p in processors if isinstance(p, BatchSpanProcessor)]
    finally:
        provider.shutdown()


def test_no_exporter_by_default() -> None:
    assert exporters({}) == []


def test_console_when_the_standard_variable_asks_for_it() -> None:
    [exporter] = exporters({"OTEL_TRACES_EXPORTER": "console"})
    assert isinstance(exporter, ConsoleSpanExporter)


def test_the_service_name_is_the_standard_variable_or_ours() -> None:
    provider = create_tracer_provider({"OTEL_SERVICE_NAME": "support-agent"})
    assert provider.resource.attributes["service.name"] == "support-agent"
    assert create_tracer_provider({}).resource.attributes["service.name"] == "agent-harness"


def test_otlp_uses_the_exporter_of_the_otlp_extra_or_says_how_to_install_it() -> None:
    try:
        importlib.import_module("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    except ImportError:
        with pytest.raises(RuntimeError, match=r"pip install 'agent-harness\[otlp\]'"):
            create_tracer_provider({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
        return
    [exporter] = exporters({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert type(exporter).__name__ == "OTLPSpanExporter"
