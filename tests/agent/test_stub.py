from __future__ import annotations

import msgspec
import pytest

from agent.config import StubConfig
from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.llm import LLMParams, ProviderStreamFailed, ProviderUnavailable, StreamingLLMClient
from agent.llm.prompts import build_messages
from agent.llm.stub import StubLLM

PARAMS = LLMParams()


def messages_for(question: str) -> list:  # type: ignore[type-arg]
    passages = KnowledgeIndex(load_bundled_corpus()).search(question, 3)
    return build_messages(question, passages, [])


async def test_stub_streams_the_same_answer_it_completes() -> None:
    stub = StubLLM(StubConfig(token_delay_ms=0))
    messages = messages_for("How do I reset my password?")

    chunks = [chunk async for chunk in stub.stream(messages, PARAMS)]
    completion = await stub.complete(messages, PARAMS)

    assert isinstance(stub, StreamingLLMClient)
    assert "".join(c.delta for c in chunks) == completion.text
    assert [c.finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert chunks[-1].finish_reason == "stop"
    assert chunks[-1].output_tokens == len(chunks) == completion.output_tokens
    assert chunks[-1].input_tokens == completion.input_tokens > 0
    answer = msgspec.json.decode(completion.text)
    assert answer["kind"] == "answer"
    assert answer["citations"] == ["kb-password-reset"]


async def test_stub_proposes_a_refund_with_the_invoice() -> None:
    completion = await StubLLM(StubConfig()).complete(messages_for("Please refund invoice INV-1001."), PARAMS)
    answer = msgspec.json.decode(completion.text)
    assert answer["kind"] == "action_proposal"
    assert answer["action"] == {"name": "issue_refund", "arguments": {"invoice_id": "INV-1001"}}


async def test_stub_fails_mid_stream_after_n_tokens() -> None:
    stub = StubLLM(StubConfig(token_delay_ms=0, fail_after_tokens=3))
    received = []

    async def consume() -> None:
        async for chunk in stub.stream(messages_for("How do I reset my password?"), PARAMS):
            received.append(chunk)

    with pytest.raises(ProviderStreamFailed):
        await consume()
    assert len(received) == 3
    with pytest.raises(ProviderUnavailable):
        await stub.complete(messages_for("How do I reset my password?"), PARAMS)


async def test_stub_paces_its_tokens() -> None:
    pauses: list[float] = []

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    stub = StubLLM(StubConfig(token_delay_ms=15), sleep=record)
    chunks = [c async for c in stub.stream(messages_for("How do I reset my password?"), PARAMS)]
    assert pauses == [0.015] * len(chunks)
