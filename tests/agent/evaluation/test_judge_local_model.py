"""The judge on the real local model (SmolLM2-135M under llama.cpp): under the verdict schema even this
small model answers a verdict, the same one twice at temperature 0, the second time from the cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agent.config import AgentConfig, LLMConfig, ProviderSettings
from agent.evaluation.judge import JudgeExpectation, JudgeSettings, create_judge
from agent.evaluation.model_calls import eval_model_calls

if TYPE_CHECKING:
    from pathlib import Path

    from agent.llm.local_server import LocalModelServer

pytestmark = pytest.mark.local_model


async def test_the_local_model_judges_an_answer_against_a_rubric(local_model: LocalModelServer, tmp_path: Path) -> None:
    config = AgentConfig(
        llm=LLMConfig(per_provider={"local": ProviderSettings(base_url=local_model.base_url, model=local_model.model)})
    )
    rubric = JudgeExpectation(rubric="The answer tells the user how to reset their password.", threshold=0.5)
    with eval_model_calls(tmp_path / "cache", environ={}) as calls:
        judge = create_judge(JudgeSettings(provider="local"), config, calls)
        try:
            verdict = await judge.grade(
                rubric,
                input="How do I reset my password?",
                output="Open Settings > Security and choose Reset password; a link is emailed to you.",
            )
            again = await judge.grade(
                rubric,
                input="How do I reset my password?",
                output="Open Settings > Security and choose Reset password; a link is emailed to you.",
            )
        finally:
            await judge.aclose()
        summary = calls.summary()

    assert verdict.label in ("pass", "fail"), verdict.explanation
    assert verdict.score is not None
    assert 0.0 <= verdict.score <= 1.0
    assert verdict.explanation[0] in "12345"
    assert again == verdict
    assert judge.info.provider == "local"
    assert judge.info.model == local_model.model
    assert (summary.hits, summary.misses) == (1, 1)
    assert summary.saved_tokens > 0
