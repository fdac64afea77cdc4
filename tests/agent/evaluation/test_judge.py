from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import msgspec
import pytest

from agent.config import AgentConfig, ConfigError, LLMConfig, ProviderSettings
from agent.evaluation import judge as judge_module
from agent.evaluation.judge import (
    JUDGE_PROMPT_SHA256,
    JUDGE_PROMPT_VERSION,
    Judge,
    JudgeExpectation,
    JudgeSettings,
    create_judge,
)
from agent.evaluation.model_calls import eval_model_calls
from agent.llm.errors import ProviderUnavailable
from agent.llm.types import Completion
from tests.agent.llm.fake_server import FakeProviderServer
from tests.agent.llm.test_cache import completion_body

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from agent.llm.types import ChatMessage, LLMParams

RUBRIC = JudgeExpectation(rubric="The answer tells the user where to reset the password.")


class FixedVerdicts:
    """A judge model that answers the verdicts it was given, in order, and keeps what it was asked."""

    provider = "fake-judge"

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[Sequence[ChatMessage], LLMParams]] = []

    @property
    def model(self) -> str:
        return "fixed-verdicts"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        self.asked.append((messages, params))
        answer = self.answers.pop(0)
        if answer == "unavailable":
            raise ProviderUnavailable("the judge's server is down")
        return Completion(
            text=answer,
            model=self.model,
            provider=self.provider,
            input_tokens=90,
            output_tokens=12,
            finish_reason="stop",
        )


async def test_a_verdict_is_scored_on_0_to_1_and_passes_at_the_threshold() -> None:
    model = FixedVerdicts(
        '{"score": 4, "reason": "Points to Settings > Security."}', '{"score": 2, "reason": "Vague."}'
    )
    judge = Judge(model, provider="fake-judge")

    good = await judge.grade(RUBRIC, input="How do I reset my password?", output="Settings > Security > Reset.")
    poor = await judge.grade(RUBRIC, input="How do I reset my password?", output="Try things.")

    assert (good.score, good.passed, good.label) == (0.75, True, "pass")
    assert good.explanation == "4/5: Points to Settings > Security."
    assert (poor.score, poor.passed, poor.label) == (0.25, False, "fail")


async def test_the_threshold_is_the_cases_own() -> None:
    strict = JudgeExpectation(rubric=RUBRIC.rubric, threshold=1.0)
    judge = Judge(FixedVerdicts('{"score": 4, "reason": "Almost."}'), provider="fake-judge")
    verdict = await judge.grade(strict, input="q", output="a")
    assert (verdict.score, verdict.passed, verdict.label) == (0.75, False, "fail")


@pytest.mark.parametrize("answer", ["I think it is good.", '{"score": 9, "reason": "x"}', '{"reason": "no score"}'])
async def test_no_verdict_is_an_error_that_does_not_pass(answer: str) -> None:
    verdict = await Judge(FixedVerdicts(answer), provider="fake-judge").grade(RUBRIC, input="q", output="a")
    assert (verdict.score, verdict.passed, verdict.label) == (None, False, "error")
    assert verdict.explanation.startswith("the judge answered no verdict")


async def test_a_judge_that_fails_gives_an_error_verdict_not_an_exception() -> None:
    verdict = await Judge(FixedVerdicts("unavailable"), provider="fake-judge").grade(RUBRIC, input="q", output="a")
    assert (verdict.passed, verdict.label) == (False, "error")
    assert "the judge's server is down" in verdict.explanation


async def test_the_judge_sees_the_rubric_the_input_and_the_answer_under_a_verdict_schema() -> None:
    model = FixedVerdicts('{"score": 5, "reason": "Yes."}')
    await Judge(model, provider="fake-judge").grade(RUBRIC, input="How do I reset?", output="Use the link.")

    [(messages, params)] = model.asked
    assert [m.role for m in messages] == ["system", "user"]
    assert all(part in messages[1].content for part in (RUBRIC.rubric, "How do I reset?", "Use the link."))
    assert params.temperature == 0.0
    assert params.structured is not None
    assert params.structured.strict["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]


def test_the_prompt_is_versioned_and_its_hash_is_of_the_prompt_itself() -> None:
    prompt = f"{judge_module._SYSTEM}\n\n{judge_module._USER}"
    assert hashlib.sha256(prompt.encode()).hexdigest() == JUDGE_PROMPT_SHA256
    info = Judge(FixedVerdicts(), provider="fake-judge").info
    assert msgspec.to_builtins(info) == {
        "provider": "fake-judge",
        "model": "fixed-verdicts",
        "prompt_version": JUDGE_PROMPT_VERSION,
        "prompt_sha256": JUDGE_PROMPT_SHA256,
    }


async def test_the_judges_calls_go_through_the_eval_cache(tmp_path: Path) -> None:
    model = FixedVerdicts('{"score": 5, "reason": "Yes."}')
    with eval_model_calls(tmp_path / "cache", environ={}) as calls:
        judge = Judge(calls.wrap(model), provider="fake-judge")
        first = await judge.grade(RUBRIC, input="q", output="a")
        again = await judge.grade(RUBRIC, input="q", output="a")
        summary = calls.summary()

    assert first == again
    assert len(model.asked) == 1
    assert (summary.hits, summary.saved_tokens) == (1, 102)


def test_the_expectation_is_checked_when_the_dataset_is_read() -> None:
    decoded = msgspec.json.decode(b'{"rubric": "Polite.", "threshold": 0.75}', type=JudgeExpectation)
    assert decoded == JudgeExpectation(rubric="Polite.", threshold=0.75)
    for bad in (b'{"rubric": "Polite.", "threshold": 1.5}', b'{"rubric": "  "}', b'{"rubric": "x", "rubrik": 1}'):
        with pytest.raises(msgspec.ValidationError):
            msgspec.json.decode(bad, type=JudgeExpectation)


def test_the_judge_is_chosen_by_its_own_flags_or_variables() -> None:
    assert JudgeSettings.from_env({}) is None
    assert JudgeSettings.from_env({"HARNESS_JUDGE_PROVIDER": "local", "HARNESS_JUDGE_MODEL": "m"}) == JudgeSettings(
        provider="local", model="m"
    )
    assert JudgeSettings.from_env({"HARNESS_JUDGE_PROVIDER": "local"}, provider="openai", model="big") == JudgeSettings(
        provider="openai", model="big"
    )
    with pytest.raises(ConfigError, match="stub model cannot judge"):
        create_judge(JudgeSettings(provider="stub"), AgentConfig())


async def test_the_judge_talks_to_its_own_provider_never_with_the_agents_settings() -> None:
    async with FakeProviderServer([completion_body('{"score": 3, "reason": "Partly."}')]) as server:
        config = AgentConfig(
            llm=LLMConfig(
                provider="openai",
                base_url="https://api.openai.com/v1",
                api_key="sk-agent-0123456789",
                model="gpt-4o-mini",
                per_provider={"local": ProviderSettings(base_url=server.base_url)},
            )
        )
        judge = create_judge(JudgeSettings(provider="local", model="judge-model"), config)
        verdict = await judge.grade(RUBRIC, input="q", output="a")
        await judge.aclose()

    assert (verdict.score, verdict.label) == (0.5, "pass")
    assert judge.info.model == "judge-model"
    [request] = server.requests
    assert request.json["model"] == "judge-model"
    assert "authorization" not in request.headers
