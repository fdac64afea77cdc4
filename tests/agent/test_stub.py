"""The stub model: deterministic at temperature 0, and when it samples, what it draws and what it never does."""

from __future__ import annotations

import math

import msgspec
import pytest

from agent.config import AgentConfig, ConfigError, StubConfig
from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.llm import LLMParams, ProviderStreamFailed, ProviderUnavailable, StreamingLLMClient
from agent.llm.prompts import build_messages
from agent.llm.stub import StubLLM, compose_answer, derive_seed, draw_rank, read_prompt

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


QUESTIONS = (
    "How do I reset my password?",
    "What are the API rate limits?",
    "How do I export my data?",
    "Please refund invoice INV-1001.",
    "Please delete account ACC-2001.",
    "What's the weather in Paris tomorrow?",
)


async def test_at_temperature_zero_the_stub_answers_as_it_always_did() -> None:
    """The default: the first passage, whatever the seed, every call (the gate's figures rest on it)."""
    for question in QUESTIONS:
        messages = messages_for(question)
        _, passages = read_prompt(messages[-1].content)
        expected = msgspec.json.encode(compose_answer(question, passages)).decode()
        for stub in (StubLLM(StubConfig()), StubLLM(StubConfig(seed=7)), StubLLM(StubConfig(temperature=0, seed=8))):
            answers = {(await stub.complete(messages, PARAMS)).text for _ in range(3)}
            assert answers == {expected}


async def answer_citations(stub: StubLLM, question: str, calls: int) -> list[list[str]]:
    messages = messages_for(question)
    return [msgspec.json.decode((await stub.complete(messages, PARAMS)).text)["citations"] for _ in range(calls)]


async def test_a_sampling_stub_cites_passages_by_rank_with_weights_exp_minus_rank_over_t() -> None:
    question = "How do I reset my password?"
    ranked = [doc_id for doc_id, _, _ in read_prompt(messages_for(question)[-1].content)[1]]
    assert len(ranked) == 3

    cited = await answer_citations(StubLLM(StubConfig(temperature=1.0, seed=11)), question, 3000)

    shares = [sum(c == [doc_id] for c in cited) / len(cited) for doc_id in ranked]
    weights = [math.exp(-rank / 1.0) for rank in range(3)]
    expected = [w / sum(weights) for w in weights]  # 0.665, 0.245, 0.090
    assert shares == pytest.approx(expected, abs=0.03)


async def test_a_sampling_stub_is_reproducible_for_a_seed_and_differs_between_seeds() -> None:
    question = "How do I reset my password?"

    first = await answer_citations(StubLLM(StubConfig(temperature=1.0, seed=1)), question, 50)
    again = await answer_citations(StubLLM(StubConfig(temperature=1.0, seed=1)), question, 50)
    other = await answer_citations(StubLLM(StubConfig(temperature=1.0, seed=2)), question, 50)
    unseeded = await answer_citations(StubLLM(StubConfig(temperature=1.0)), question, 50)

    assert first == again, "the same seed, prompts and call order: the same answers"
    assert len({tuple(c) for c in first}) > 1, "the calls of one client are draws of their own"
    assert first != other
    assert unseeded != first, "no seed: a random one (the same 50 draws as seed 1 would be a 1-in-10^20 chance)"


async def test_a_sampling_stub_varies_only_the_passage_it_answers_from() -> None:
    """What a question asks for (an answer, no answer, which action) never depends on the draw."""
    stub = StubLLM(StubConfig(temperature=5.0, seed=3))
    for question in QUESTIONS:
        messages = messages_for(question)
        _, passages = read_prompt(messages[-1].content)
        deterministic = compose_answer(question, passages)
        for _ in range(20):
            sampled = msgspec.json.decode((await stub.complete(messages, PARAMS)).text)
            assert sampled["kind"] == deterministic["kind"]
            assert sampled.get("action") == deterministic.get("action")
            assert set(sampled["citations"]) <= {doc_id for doc_id, _, _ in passages}


async def test_the_stub_reads_its_own_temperature_not_the_calls() -> None:
    """The agent asks every model for temperature 0; the stub's setting is what an eval varies."""
    messages = messages_for("How do I reset my password?")
    hot = LLMParams(temperature=2.0)
    deterministic = StubLLM(StubConfig())
    sampling = StubLLM(StubConfig(temperature=1.0, seed=5))
    baseline = StubLLM(StubConfig(temperature=1.0, seed=5))

    assert {(await deterministic.complete(messages, hot)).text for _ in range(10)} == {
        (await deterministic.complete(messages, PARAMS)).text
    }
    assert [(await sampling.complete(messages, hot)).text for _ in range(10)] == [
        (await baseline.complete(messages, PARAMS)).text for _ in range(10)
    ]


def test_draw_rank_inverts_the_cumulative_weights() -> None:
    weights = [math.exp(-rank / 0.5) for rank in range(3)]
    first = weights[0] / sum(weights)
    assert draw_rank(3, 0.5, 0.0) == 0
    assert draw_rank(3, 0.5, first - 1e-9) == 0
    assert draw_rank(3, 0.5, first + 1e-9) == 1
    assert draw_rank(3, 0.5, 1 - 1e-12) == 2
    assert draw_rank(1, 0.5, 0.99) == 0
    assert draw_rank(3, 0.0, 0.99) == 0


def test_derived_seeds_are_stable_and_distinct() -> None:
    seeds = {derive_seed(1, case, epoch) for case in ("a", "b", "ab") for epoch in (1, 2, 12)}
    assert len(seeds) == 9
    assert derive_seed(1, "a", 1) == derive_seed(1, "a", 1) != derive_seed(2, "a", 1)
    assert derive_seed(1, "a", 12) != derive_seed(1, "a1", 2), "the parts are kept apart"


def test_the_stub_settings_come_from_the_environment() -> None:
    assert AgentConfig.from_env({}).stub == StubConfig()
    stub = AgentConfig.from_env({"HARNESS_STUB_TEMPERATURE": "0.7", "HARNESS_STUB_SEED": "42"}).stub
    assert (stub.temperature, stub.seed) == (0.7, 42)
    for name, raw, message in (
        ("HARNESS_STUB_TEMPERATURE", "warm", "must be a number"),
        ("HARNESS_STUB_TEMPERATURE", "-1", "must not be negative"),
        ("HARNESS_STUB_TEMPERATURE", "nan", "finite number"),
        ("HARNESS_STUB_TEMPERATURE", "inf", "finite number"),
        ("HARNESS_STUB_SEED", "lucky", "must be an integer"),
    ):
        with pytest.raises(ConfigError, match=message):
            AgentConfig.from_env({name: raw})
