from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent import open_agent
from agent.clock import SequentialIds, SteppingClock
from agent.config import AgentConfig, StubConfig

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from agent import Agent


@pytest.fixture
def agent_config(tmp_path: Path) -> AgentConfig:
    return AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0))


@pytest.fixture
def spans() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def tracer_provider(spans: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    return provider


@pytest.fixture
async def agent(agent_config: AgentConfig, tracer_provider: TracerProvider) -> AsyncIterator[Agent]:
    async with open_agent(
        agent_config, clock=SteppingClock(), ids=SequentialIds(), tracer_provider=tracer_provider
    ) as opened:
        yield opened
