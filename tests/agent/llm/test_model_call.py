"""The OpenAI-compatible adapter behind ``call_model``: what ends up in ``token_delta`` and ``cost_updated``."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace

from agent.clock import SequentialIds, SteppingClock
from agent.deps import AgentDeps
from agent.llm import OpenAICompatibleClient
from agent.llm.pricing import PriceTable
from agent.llm.types import LLMParams, ToolCall
from agent.nodes.model_call import call_model
from contracts import CostUpdated, TokenDelta
from tests.agent.llm.conftest import MESSAGES
from tests.agent.llm.fake_server import FakeProviderServer, Reply, openai_stream

PIECES = ['{"kind": "answer", "text": "Open ', "Settings \\u2192 ", 'Security."}']


async def run_model(client: OpenAICompatibleClient) -> tuple[list[TokenDelta], list[CostUpdated], str]:
    deps = AgentDeps(
        llm=client,
        knowledge=None,  # type: ignore[arg-type]
        actions=None,  # type: ignore[arg-type]
        prices=PriceTable(),
        tracer=trace.get_tracer("tests"),
        clock=SteppingClock(),
        ids=SequentialIds(),
    )
    emitted: list[Any] = []

    async def nothing_to_add(raw: str, shown: str, tool_calls: tuple[ToolCall, ...]) -> str:
        return ""

    reply = await call_model(deps, MESSAGES, LLMParams(max_tokens=64), emitted.append, nothing_to_add)
    deltas = [e for e in emitted if isinstance(e, TokenDelta)]
    costs = [e for e in emitted if isinstance(e, CostUpdated)]
    return deltas, costs, reply.text


async def test_a_stream_without_usage_is_marked_estimated_and_still_priced() -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES, usage=None))]) as server:
        client = OpenAICompatibleClient(base_url=server.base_url, model="gpt-4o-mini", api_key="sk-test")
        try:
            deltas, costs, text = await run_model(client)
        finally:
            await client.aclose()

    assert [d.delta for d in deltas] == [*PIECES, ""]
    assert "".join(d.text for d in deltas) == text == "Open Settings \u2192 Security."
    last = deltas[-1]
    assert last.metadata == {"provider": "openai", "usage": "estimated"}
    assert last.input_tokens > 0
    assert last.output_tokens >= len(PIECES)
    assert all((d.finish_reason, d.input_tokens, d.output_tokens) == (None, 0, 0) for d in deltas[:-1])
    [cost] = costs
    assert cost.cost_usd is not None
    assert cost.cost_usd > 0


async def test_reported_usage_is_marked_reported() -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES, usage=(100, 10)))]) as server:
        client = OpenAICompatibleClient(base_url=server.base_url, model="unpriced-model")
        try:
            deltas, costs, _ = await run_model(client)
        finally:
            await client.aclose()

    assert deltas[-1].metadata == {"provider": "openai", "usage": "reported"}
    assert (deltas[-1].input_tokens, deltas[-1].output_tokens) == (100, 10)
    assert costs[0].cost_usd is None
