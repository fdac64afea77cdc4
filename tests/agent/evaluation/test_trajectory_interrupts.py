"""A node that calls ``interrupt()`` runs again when resumed: its trajectory names it once, with the pause marked.

The graph is the test's own: ``plan → critique`` twice (the critique sends the first plan back), then ``book``,
which asks for an approval with ``interrupt()``. LangGraph's streams show ``book`` starting twice for the one
booking; a person reading the graph expects ``plan → critique → plan → critique → book``.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

import msgspec
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from agent.evaluation.graph_cases import GraphCase
from agent.evaluation.graph_runner import run_graph_case
from agent.evaluation.html import render_html
from agent.evaluation.markdown import render_markdown
from agent.evaluation.records import INTERRUPT_MARKER
from agent.evaluation.report import build_report, dataset_info
from agent.evaluation.results import EvalRun
from agent.graphs.registry import RegisteredGraph

if TYPE_CHECKING:
    from pathlib import Path

PERSON_READS = ["plan", "critique", "plan", "critique", "book"]


class Booking(TypedDict, total=False):
    drafts: Annotated[list[str], operator.add]
    approvals: Annotated[list[Any], operator.add]
    booked: bool


def plan(state: Booking) -> Booking:
    return {"drafts": [f"draft {len(state.get('drafts', [])) + 1}"]}


def critique(state: Booking) -> Booking:
    return {}


def again_or_book(state: Booking) -> str:
    return "plan" if len(state.get("drafts", [])) < 2 else "book"


def book(state: Booking) -> Booking:
    approval = interrupt({"action": "book", "summary": "book the trip?"})
    second = interrupt({"action": "pay"}) if approval == "approve, and ask to pay" else None
    return {"approvals": [a for a in (approval, second) if a is not None], "booked": True}


def booking_graph() -> RegisteredGraph:
    builder = StateGraph(Booking)
    builder.add_node("plan", plan)
    builder.add_node("critique", critique)
    builder.add_node("book", book)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "critique")
    builder.add_conditional_edges("critique", again_or_book, ["plan", "book"])
    builder.add_edge("book", END)
    return RegisteredGraph("booking", builder.compile(checkpointer=InMemorySaver()))


def booking_case(case_id: str, resume: list[Any], trajectory: dict[str, Any]) -> GraphCase:
    expect = {"trajectory": trajectory, "interrupts": len(resume) or 1}
    return msgspec.convert({"id": case_id, "input": {"drafts": []}, "resume": resume, "expect": expect}, GraphCase)


async def test_a_node_resumed_after_its_interrupt_is_one_step_of_the_trajectory() -> None:
    case = booking_case("booked", ["approve"], {"nodes": PERSON_READS, "match": "strict"})

    record = await run_graph_case(case, booking_graph())

    assert record.status == "completed"
    assert record.state["booked"] is True
    assert record.node_names(nested=False) == PERSON_READS
    assert record.node_names(nested=False, marked=True) == [*PERSON_READS, INTERRUPT_MARKER]
    assert [step.outcome for step in record.trajectory] == ["ok"] * 5 + ["interrupted"], "the pause, in place"
    assert record.passed, record.failures


async def test_a_marked_expectation_says_where_the_run_paused() -> None:
    marked = {"nodes": [*PERSON_READS, "__interrupt__"], "match": "strict", "interrupts": "marked"}
    twice = {"nodes": [*PERSON_READS, "__interrupt__", "__interrupt__"], "match": "strict", "interrupts": "marked"}

    once = await run_graph_case(booking_case("marked", ["approve"], marked), booking_graph())
    paused_twice = await run_graph_case(
        booking_case("twice", ["approve, and ask to pay", "paid"], twice), booking_graph()
    )

    assert once.passed, once.failures
    assert paused_twice.passed, paused_twice.failures
    assert paused_twice.node_names(nested=False) == PERSON_READS, "two pauses of one node: still one execution"


async def test_a_pause_nobody_answers_ends_the_trajectory_at_the_paused_node() -> None:
    case = booking_case("waiting", [], {"nodes": PERSON_READS, "match": "strict"})

    record = await run_graph_case(case, booking_graph())

    assert record.status == "paused"
    assert record.node_names(nested=False) == PERSON_READS
    assert [step.outcome for step in record.trajectory][-2:] == ["interrupted", "interrupted"]
    assert record.passed, record.failures


async def test_the_reports_show_the_pause(tmp_path: Path) -> None:
    case = booking_case("booked", ["approve"], {"nodes": ["plan"], "match": "strict"})
    record = await run_graph_case(case, booking_graph())
    dataset = tmp_path / "booking.jsonl"
    dataset.write_text("{}\n", encoding="utf-8")
    run = EvalRun(
        provider="stub",
        model=None,
        started_at="2026-01-01T00:00:00Z",
        duration_s=0.1,
        concurrency=1,
        retrieval_k=0,
        cases=[],
        records=[record],
    )
    report = build_report(dataset_info(dataset, 1), [run], graph="booking")

    assert "plan → critique → plan → critique → book → __interrupt__" in render_markdown(report)
    page = render_html(report)
    assert '<span class="interrupted" title="the run paused here at an interrupt">__interrupt__</span>' in page
    assert page.count(">book</span>") == 1
