"""The judge online: with a rubric, the eval's own judge grades a registered graph's completed run (its first
input against its final answer), shown redacted; a verdict is a score and its label, never the judge's words; no
verdict (the judge failed) is no score; a ``/chat`` turn, whose question is not in its events, is not judged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from agent.config import ConfigError
from agent.evaluation import CapturedRun, JudgeSettings, OnlineScoring, score_run
from agent.evaluation.judge import Judge
from api.online_eval import OnlineEvalSettings
from tests.agent.evaluation.test_judge import FixedVerdicts

if TYPE_CHECKING:
    from agent.evaluation import OnlineScore

CARD = "4111 1111 1111 1111"
RUBRIC = "The answer says where the order is."
SCORING = OnlineScoring(rate=1.0, judge_rubric=RUBRIC)


def graph_run(answer: str = "Order A-1002 is in transit.") -> CapturedRun:
    """A completed run of a registered graph, as its event log has it."""
    question = {"type": "human", "content": f"Where is my order A-1002? My card is {CARD}."}
    envelopes: list[dict[str, Any]] = [
        {"type": "graph_topology", "data": {"nodes": []}},
        {"type": "graph_part", "data": {"mode": "values", "data": {"messages": [question]}}},
        {"type": "node_started", "data": {"node": "agent", "step": 1}},
        {
            "type": "node_completed",
            "data": {"node": "agent", "step": 1, "latency_ms": 3.0, "outcome": "ok", "summary": "answered"},
        },
        {"type": "run_completed", "data": {"output": {"messages": [question, {"type": "ai", "content": answer}]}}},
    ]
    return CapturedRun(run_id="r_1", status="completed", owner=None, graph_id="react_agent", envelopes=envelopes)


def by_scorer(scores: list[OnlineScore]) -> dict[str, OnlineScore]:
    return {score.scorer: score for score in scores}


async def test_the_judge_grades_a_graph_runs_answer_shown_redacted_and_keeps_only_the_score() -> None:
    model = FixedVerdicts('{"score": 5, "reason": "It names the order and its state."}')

    scores = by_scorer(await score_run(graph_run(), SCORING, at="t", judge=Judge(model, provider="fake-judge")))

    judged = scores["judge"]
    assert (judged.value, judged.passed, judged.reason, judged.assistant) == (1.0, True, "pass", "react_agent")
    ((messages, _),) = model.asked
    asked = messages[-1].content
    assert RUBRIC in asked
    assert "Order A-1002 is in transit." in asked
    assert "[REDACTED CARD]" in asked
    assert CARD not in asked, "the judge sees what the run said redacted"
    assert "names the order" not in str(scores), "the judge's reason is not kept"


async def test_a_poor_answer_fails_and_no_verdict_is_no_score() -> None:
    model = FixedVerdicts('{"score": 1, "reason": "No."}', "unavailable")
    judge = Judge(model, provider="fake-judge")

    poor = by_scorer(await score_run(graph_run("I cannot say."), SCORING, at="t", judge=judge))
    failed = by_scorer(await score_run(graph_run(), SCORING, at="t", judge=judge))

    assert (poor["judge"].value, poor["judge"].passed, poor["judge"].reason) == (0.0, False, "fail")
    assert "judge" not in failed, "a judge that answered nothing says nothing of the answer"
    assert failed["outcome"].passed


async def test_without_a_rubric_or_on_a_chat_turn_nothing_is_judged() -> None:
    model = FixedVerdicts()
    judge = Judge(model, provider="fake-judge")
    turn = CapturedRun(
        run_id="r_2",
        status="completed",
        owner=None,
        graph_id=None,
        envelopes=[{"type": "turn_completed", "data": {"response": {"status": "completed"}}}],
    )

    unjudged = await score_run(graph_run(), OnlineScoring(rate=1.0), at="t", judge=judge)
    chat = await score_run(turn, SCORING, at="t", judge=judge)

    assert "judge" not in by_scorer(unjudged)
    assert "judge" not in by_scorer(chat)
    assert model.asked == []


def test_a_rubric_needs_a_judge_provider() -> None:
    with pytest.raises(ConfigError, match="HARNESS_JUDGE_PROVIDER"):
        OnlineEvalSettings.from_env({"HARNESS_ONLINE_EVAL_RATE": "1", "HARNESS_ONLINE_EVAL_JUDGE_RUBRIC": RUBRIC})

    settings = OnlineEvalSettings.from_env(
        {"HARNESS_ONLINE_EVAL_RATE": "1", "HARNESS_ONLINE_EVAL_JUDGE_RUBRIC": RUBRIC, "HARNESS_JUDGE_PROVIDER": "local"}
    )

    assert settings.judge == JudgeSettings(provider="local")
    assert settings.scoring.judge_rubric == RUBRIC


async def test_a_card_number_across_the_judges_cut_is_redacted_whole() -> None:
    """The text is redacted, then cut to what the judge is shown: cut first, the card's first digits would no
    longer read as a card number and would reach the judge's provider."""
    model = FixedVerdicts('{"score": 5, "reason": "Fine."}')
    run = graph_run()
    question = {"type": "human", "content": "x" * 3990 + " " + CARD + " is my card."}  # the card spans 3991-4010
    run.envelopes[1] = {"type": "graph_part", "data": {"mode": "values", "data": {"messages": [question]}}}

    await score_run(run, SCORING, at="t", judge=Judge(model, provider="fake-judge"))

    ((messages, _),) = model.asked
    assert "4111" not in messages[-1].content
