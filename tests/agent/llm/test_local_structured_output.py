"""The real local model (SmolLM2-135M under llama.cpp) under the answer's schema: every answer parses, a
refund it is asked for is proposed for the invoice named, and with nothing retrieved it can only decline."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent import open_agent, run_turn
from agent.config import AgentConfig, LLMConfig
from agent.llm.local_server import LocalModelServer

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.local_model


async def test_the_local_model_answers_in_the_schema_and_proposes_the_named_refund(
    local_model: LocalModelServer, tmp_path: Path
) -> None:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    config = AgentConfig(
        data_dir=tmp_path, llm=LLMConfig(provider="local", base_url=local_model.base_url, timeout_s=120)
    )
    async with open_agent(config, tracer_provider=provider) as agent:
        question = await run_turn(agent, "How do I reset my password?", session_id="s1", run_id="r1")
        refund = await run_turn(agent, "Please refund invoice INV-1001.", session_id="s2", run_id="r2")
        nothing = await run_turn(agent, "What is the capital of France?", session_id="s3", run_id="r3")

    well_formed = [
        span.attributes["llm.well_formed"] for span in spans.get_finished_spans() if span.name == "llm.generate"
    ]
    assert well_formed == [True, True, True]
    assert question.status == "completed"
    assert question.answer.kind in ("answer", "no_answer")
    assert len(question.citations) <= 1
    assert refund.status == "paused"
    assert refund.pending_approval is not None
    assert refund.pending_approval.summary == "Refund invoice INV-1001 ($42.00)"
    assert (nothing.status, nothing.answer.kind, nothing.citations) == ("completed", "no_answer", [])
