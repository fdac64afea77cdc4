"""``harness eval``'s model-call cache and judge, end to end through the command (examples/react_agent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.config import AgentConfig, LLMConfig, ProviderSettings
from agent.evaluation.graph_cases import GraphCase
from agent.evaluation.judge import JUDGE_PROMPT_SHA256, JudgeSettings, Judging, judging
from agent.evaluation.records import GraphRecord
from agent.evaluation.scorers import score_case
from api.cli import main
from tests.agent.llm.fake_server import FakeProviderServer
from tests.agent.llm.test_cache import completion_body

if TYPE_CHECKING:
    import pytest

EXAMPLES = Path(__file__).parents[3] / "examples"
DATASET = """
cases:
  - id: lookup-order
    messages: What is the status of order A-1002?
    expect:
      tools: [{name: lookup_order, args: {order_id: A-1002}}]
      state_contains: {messages.-1.content: shipped}
"""


def run_eval(tmp_path: Path, out: str, *flags: str) -> dict[str, object]:
    dataset = tmp_path / "dataset.yaml"
    dataset.write_text(DATASET)
    argv = ["eval", "--config", str(EXAMPLES / "langgraph.json"), "--graph", "react_agent", "--dataset", str(dataset)]
    assert main([*argv, "--out", str(tmp_path / out), *flags]) == 0
    report: dict[str, object] = json.loads((tmp_path / out / "report.json").read_text())
    return report


def outcomes(report: dict[str, object]) -> list[tuple[object, ...]]:
    cases = report["cases"]
    assert isinstance(cases, list)
    return [(c["id"], c["passed"], c["scores"]["tools"], c["scores"]["state"], c["scores"]["tokens"]) for c in cases]


def test_a_second_eval_answers_its_model_calls_from_the_cache_and_says_how_much_it_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path / "data"))
    first = run_eval(tmp_path, "first")
    second = run_eval(tmp_path, "second")
    off = run_eval(tmp_path, "off", "--no-cache")

    cache_path = str(tmp_path / "data" / "cache" / "model-calls.sqlite")
    assert first["cache"] == {
        "hits": 0,
        "misses": 2,
        "saved_input_tokens": 0,
        "saved_output_tokens": 0,
        "enabled": True,
        "path": cache_path,
    }
    cached = second["cache"]
    assert isinstance(cached, dict)
    assert (cached["hits"], cached["misses"]) == (2, 0)
    assert cached["saved_input_tokens"] + cached["saved_output_tokens"] > 0
    assert outcomes(first) == outcomes(second) == outcomes(off)  # the same answers, usage counts included
    assert off["cache"] == {
        "hits": 0,
        "misses": 0,
        "saved_input_tokens": 0,
        "saved_output_tokens": 0,
        "enabled": False,
        "path": None,
    }
    assert first["judge"] is None
    printed = capsys.readouterr().out
    assert "model-call cache: 2 hits, 0 misses" in printed
    assert "model-call cache: off (--no-cache)" in printed


CASE = msgspec.convert(
    {
        "id": "polite",
        "messages": "Where is my order?",
        "expect": {"judge": {"rubric": "The answer says where the order is.", "threshold": 0.75}},
    },
    GraphCase,
)
RECORD = GraphRecord(id="polite", state={"messages": [{"type": "ai", "content": "It ships tomorrow from Lyon."}]})


async def test_expect_judge_is_scored_by_the_judge_scorer_of_the_registry() -> None:
    async with FakeProviderServer([completion_body('{"score": 4, "reason": "Says when and where."}')]) as server:
        config = AgentConfig(llm=LLMConfig(per_provider={"local": ProviderSettings(base_url=server.base_url)}))
        judges = Judging(JudgeSettings(provider="local"), config, None)
        with judging(judges):
            [check] = await score_case(CASE, RECORD)

    assert (check.name, check.passed, check.score) == ("judge", True, 0.75)
    assert judges.used == 1
    assert judges.info is not None
    assert judges.info.prompt_sha256 == JUDGE_PROMPT_SHA256
    [request] = server.requests
    prompt = request.json["messages"][1]["content"]
    assert "Where is my order?" in prompt
    assert "It ships tomorrow from Lyon." in prompt


async def test_expect_judge_without_a_judge_fails_the_check_saying_how_to_set_one() -> None:
    [check] = await score_case(CASE, RECORD)
    assert (check.name, check.passed) == ("judge", False)
    assert "HARNESS_JUDGE_PROVIDER" in check.detail
