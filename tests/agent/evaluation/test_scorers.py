"""The checks of a graph case: state paths, trajectory match modes, tools, interrupts, budgets, custom and
registered scorers."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from agent.evaluation.graph_cases import GraphCase, TrajectoryExpect
from agent.evaluation.records import Check, GraphRecord, ToolCall
from agent.evaluation.scorers import match_trajectory, read_path, register_scorer, resolve_scorer, score_case

STATE = {
    "messages": [
        {"type": "human", "content": "refund A-1"},
        {"type": "ai", "content": "Refunded 42.00 EUR for order A-1.", "tool_calls": []},
    ],
    "total": 42.0,
    "tags": ["refund", "urgent"],
}


def case(**expect: Any) -> GraphCase:
    return msgspec.convert({"id": "c", "messages": "hi", "expect": expect}, type=GraphCase)


def record(**fields: Any) -> GraphRecord:
    return GraphRecord(id="c", state=STATE, **fields)


def test_a_path_reads_keys_and_indexes_negative_from_the_end() -> None:
    assert read_path(STATE, "messages.-1.content") == "Refunded 42.00 EUR for order A-1."
    assert read_path(STATE, "messages.0.type") == "human"
    assert read_path(STATE, "tags.1") == "urgent"
    assert read_path(STATE, "messages.5") is not None  # missing: the sentinel, never an exception
    assert read_path(STATE, "messages.5") == read_path(STATE, "nope.x")


@pytest.mark.parametrize(
    ("nodes", "mode", "ran", "ok"),
    [
        (["a", "b", "a"], "strict", ["a", "b", "a"], True),
        (["a", "b", "a"], "strict", ["a", "a", "b"], False),
        (["a", "b", "a"], "unordered", ["a", "a", "b"], True),
        (["a", "b", "a"], "unordered", ["a", "b"], False),
        (["a", "b", "c"], "subset", ["a", "b"], True),  # ran nothing beyond these
        (["a", "b"], "subset", ["a", "b", "c"], False),
        (["a", "b"], "superset", ["a", "x", "b", "c"], True),  # ran at least these
        (["a", "d"], "superset", ["a", "b"], False),
    ],
)
def test_trajectory_match_modes(nodes: list[str], mode: Any, ran: list[str], ok: bool) -> None:
    why = match_trajectory(TrajectoryExpect(nodes=nodes, match=mode), ran)
    assert (why is None) == ok
    if not ok:
        assert why is not None
        assert mode in why


async def test_every_state_assertion_and_its_miss_in_words() -> None:
    passing = case(
        state={"total": 42.0},
        state_contains={"messages.-1.content": "Refunded", "tags": "urgent"},
        state_regex={"messages.-1.content": r"^Refunded \d+\.\d\d"},
        state_one_of={"messages.-1.type": ["ai", "tool"]},
        state_range={"total": {"min": 10, "max": 50}},
        state_schema={"tags": {"type": "array", "items": {"type": "string"}}},
    )
    [check] = await score_case(passing, record())
    assert check == Check(name="state", passed=True, score=1.0, detail="")

    failing = case(
        state={"total": 41.0, "messages.-1.type": "ai"},
        state_range={"total": {"max": 10}},
        state_schema={"total": {"type": "string"}},
        state_contains={"missing.path": "x"},
    )
    [check] = await score_case(failing, record())
    assert not check.passed
    assert check.score == pytest.approx(1 / 5)
    assert "total: expected 41.0, got 42.0" in check.detail
    assert "total: 42.0 is not within [None, 10.0]" in check.detail
    assert "not valid against its schema" in check.detail
    assert "missing.path: nothing there does not contain 'x'" in check.detail


async def test_tools_are_found_in_order_by_subset_or_exact_arguments() -> None:
    calls = [
        ToolCall(name="lookup_order", args={"order_id": "A-1"}),
        ToolCall(name="issue_refund", args={"order_id": "A-1", "reason": "torn"}),
    ]
    subset = case(tools=[{"name": "lookup_order"}, {"name": "issue_refund", "args": {"order_id": "A-1"}}])
    exact_wrong = case(tools=[{"name": "issue_refund", "args": {"order_id": "A-1"}, "exact": True}])
    out_of_order = case(tools=[{"name": "issue_refund"}, {"name": "lookup_order"}])
    none_expected = case(tools=[])

    assert (await score_case(subset, record(tool_calls=calls)))[0].passed
    assert not (await score_case(exact_wrong, record(tool_calls=calls)))[0].passed
    miss = (await score_case(out_of_order, record(tool_calls=calls)))[0]
    assert not miss.passed
    assert "no call of lookup_order" in miss.detail
    assert (await score_case(none_expected, record()))[0].passed
    assert not (await score_case(none_expected, record(tool_calls=calls)))[0].passed


async def test_interrupts_by_count_or_by_value_and_budgets() -> None:
    raised = [{"action": "issue_refund", "args": {"order_id": "A-1"}, "summary": "Refund 42.00"}]
    assert (await score_case(case(interrupts=1), record(interrupts=raised)))[0].passed
    assert not (await score_case(case(interrupts=0), record(interrupts=raised)))[0].passed
    by_value = case(interrupts=[{"action": "issue_refund", "args": {"order_id": "A-1"}}])
    assert (await score_case(by_value, record(interrupts=raised)))[0].passed
    wrong_value = case(interrupts=[{"action": "delete_account"}])
    assert not (await score_case(wrong_value, record(interrupts=raised)))[0].passed

    over = record(latency_ms=1500.0, input_tokens=900, output_tokens=200)
    [budget] = await score_case(case(budget={"latency_ms": 1000, "tokens": 1000, "cost_usd": 0.01}), over)
    assert not budget.passed
    assert budget.detail == (
        "latency 1500.0 ms over 1000.0 ms; 1100 tokens over 1000; cost not measured (no priced model call)"
    )
    [budget] = await score_case(case(budget={"latency_ms": 2000, "tokens": 1100}), over)
    assert budget.passed


def says_refunded(case: GraphCase, record: GraphRecord) -> float:
    """A custom scorer: how much of the last message's text is the word 'Refunded' (a graded score)."""
    text = record.state["messages"][-1]["content"]
    return 1.0 if text.startswith("Refunded") else 0.25


def raises(case: GraphCase, record: GraphRecord) -> bool:
    raise RuntimeError("boom")


async def test_custom_scorers_by_module_and_function() -> None:
    checks = await score_case(
        case(
            scorers=[
                "tests.agent.evaluation.test_scorers:says_refunded",
                "tests.agent.evaluation.test_scorers:raises",
            ]
        ),
        record(),
    )

    assert checks[0] == Check(name="tests.agent.evaluation.test_scorers:says_refunded", passed=True, score=1.0)
    assert not checks[1].passed
    assert checks[1].detail == "the scorer raised RuntimeError: boom"
    with pytest.raises(ValueError, match="has no function nope"):
        resolve_scorer("tests.agent.evaluation.test_scorers:nope")
    with pytest.raises(ValueError, match="cannot import"):
        resolve_scorer("no_such_module_anywhere:f")


async def test_a_registered_scorer_runs_for_its_expect_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """How the LLM judge plugs in: it registers itself as ``judge`` and reads the case's rubric."""
    from agent.evaluation import scorers

    seen: list[dict[str, Any] | None] = []

    async def fake_judge(case: GraphCase, record: GraphRecord) -> Check:
        seen.append(case.expect.judge)
        return Check(name="judge", passed=True, score=0.8)

    monkeypatch.setattr(scorers, "_REGISTRY", dict(scorers._REGISTRY))
    register_scorer("judge", fake_judge)

    checks = await score_case(case(judge={"rubric": "polite and correct"}), record())

    assert checks == [Check(name="judge", passed=True, score=0.8)]
    assert seen == [{"rubric": "polite and correct"}]
