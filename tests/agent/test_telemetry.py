from __future__ import annotations

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
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


@pytest.mark.parametrize(
    ("environ", "endpoint"),
    [
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, "http://127.0.0.1:4318/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"}, "http://collector:4318/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/custom"}, "http://collector:4318/custom"),
    ],
)
def test_an_otlp_endpoint_turns_on_the_otlp_http_exporter_at_the_traces_path(
    environ: dict[str, str], endpoint: str
) -> None:
    [exporter] = exporters(environ)
    assert isinstance(exporter, OTLPSpanExporter)
    assert exporter._endpoint == endpoint
