"""Traces reach a real OTLP/HTTP endpoint: a served turn's GenAI spans, and an eval run's spans with its
scores as ``gen_ai.evaluation.result`` events.

The endpoint is a small HTTP server that decodes what arrives with the official protobuf messages
(``opentelemetry-proto``'s ``ExportTraceServiceRequest``), as a collector would.
"""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from agent.config import AgentConfig, StubConfig
from agent.evaluation.dataset import BUNDLED_DATASETS, load_dataset, load_graph_dataset
from agent.evaluation.graph_runner import load_registered_graph, run_graph_case
from agent.evaluation.runner import run_dataset
from agent.knowledge import load_bundled_corpus
from api.app import create_app
from tests.e2e.conftest import LiveServer

if TYPE_CHECKING:
    from collections.abc import Iterator

    from opentelemetry.proto.trace.v1.trace_pb2 import Span

    from api.settings import Settings


class Received(msgspec.Struct, frozen=True):
    name: str
    service: str
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    span_id: bytes
    parent_span_id: bytes


class OtlpReceiver:
    """POST /v1/traces, decoded span by span."""

    def __init__(self) -> None:
        self.spans: list[Received] = []
        self.paths: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.take(self.path, self.headers.get("Content-Type", ""), request)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._lock = threading.Lock()

    def take(self, path: str, content_type: str, request: ExportTraceServiceRequest) -> None:
        assert content_type == "application/x-protobuf"
        with self._lock:
            self.paths.append(path)
            for resource_spans in request.resource_spans:
                service = _attributes(resource_spans.resource.attributes)["service.name"]
                for scope_spans in resource_spans.scope_spans:
                    self.spans += [_received(span, service) for span in scope_spans.spans]

    def named(self, prefix: str) -> list[Received]:
        return [span for span in self.spans if span.name.startswith(prefix)]

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind)


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _received(span: Span, service: str) -> Received:
    return Received(
        name=span.name,
        service=service,
        attributes=_attributes(span.attributes),
        events=[(event.name, _attributes(event.attributes)) for event in span.events],
        span_id=span.span_id,
        parent_span_id=span.parent_span_id,
    )


@pytest.fixture
def otlp(monkeypatch: pytest.MonkeyPatch) -> Iterator[OtlpReceiver]:
    """A receiver, and the standard variables that point the service (and harness eval) at it."""
    with OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        monkeypatch.setenv("OTEL_SERVICE_NAME", "harness-under-test")
        yield receiver


def test_a_served_turn_arrives_as_genai_spans(settings: Settings, otlp: OtlpReceiver) -> None:
    with LiveServer(create_app(settings)) as server:
        response = httpx.post(
            f"{server.url}/chat", json={"message": "How do I reset my password?", "session_id": "s_otlp"}
        )
        assert response.status_code == 200, response.text
    # the server's tracer provider flushed its batch when the app stopped

    assert set(otlp.paths) == {"/v1/traces"}
    [run] = otlp.named("invoke_agent support_agent")
    assert run.service == "harness-under-test"
    assert run.attributes == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "support_agent",
        "gen_ai.agent.id": "support",
        "gen_ai.conversation.id": "s_otlp",
    }
    [chat] = otlp.named("chat ")
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.provider.name"] == "stub"
    assert chat.attributes["gen_ai.request.model"] == chat.name.removeprefix("chat ")
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert chat.attributes["gen_ai.usage.output_tokens"] > 0
    assert "gen_ai.input.messages" not in chat.attributes
    nodes = otlp.named("node ")
    assert len(nodes) == 4
    assert {node.parent_span_id for node in nodes} == {run.span_id}


async def test_an_eval_runs_spans_and_its_scores_arrive_as_evaluation_events(
    tmp_path: Path, otlp: OtlpReceiver
) -> None:
    cases = load_dataset(BUNDLED_DATASETS["dev"], known_doc_ids={doc.doc_id for doc in load_bundled_corpus()})[:3]
    config = AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0))
    run = await run_dataset(cases, config, concurrency=2)

    runs = otlp.named("invoke_agent support_agent")
    assert len(runs) >= len(cases)
    evaluated = otlp.named("evaluate ")
    assert sorted(span.name for span in evaluated) == sorted(f"evaluate {case.id}" for case in cases)
    run_ids = {span.span_id for span in runs}
    for span in evaluated:
        result = next(r for r in run.cases if r.id == span.attributes["harness.eval.case_id"])
        assert span.parent_span_id in run_ids
        [(name, event)] = span.events
        assert name == "gen_ai.evaluation.result"
        assert event["gen_ai.evaluation.name"] == "passed"
        assert event["gen_ai.evaluation.score.value"] == (1.0 if result.passed else 0.0)
        assert event["gen_ai.evaluation.score.label"] == ("pass" if result.passed else "fail")


async def test_a_registered_graphs_eval_arrives_with_each_check_as_an_evaluation_event(otlp: OtlpReceiver) -> None:
    examples = Path(__file__).parents[2] / "examples"
    [case] = [c for c in load_graph_dataset(examples / "react_agent" / "eval.yaml") if c.id == "refund-approved"]
    registered = await load_registered_graph(examples / "langgraph.json", "react_agent", InMemorySaver())
    record = await run_graph_case(case, registered)

    assert record.passed, record.checks
    assert len(otlp.named("invoke_agent react_agent")) == 2  # the run that paused, and its resume
    assert {span.name for span in otlp.named("execute_tool ")} == {
        "execute_tool lookup_order",
        "execute_tool issue_refund",
    }
    assert otlp.named("chat ")
    [evaluated] = otlp.named("evaluate refund-approved")
    events = {attributes["gen_ai.evaluation.name"]: attributes for _, attributes in evaluated.events}
    assert set(events) == {"passed", *(check.name for check in record.checks)}
    assert events["passed"]["gen_ai.evaluation.score.label"] == "pass"
    assert events["trajectory"]["gen_ai.evaluation.score.value"] == 1.0
