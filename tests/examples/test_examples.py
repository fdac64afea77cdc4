"""The examples, loaded from examples/langgraph.json the way ``harness serve --config`` loads them, run through
``GraphStream`` on the service's stores: a ReAct agent whose refund waits for a person, a research graph with a
subgraph in a cycle."""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from langgraph.types import Command

from agent.clock import SteppingClock
from agent.graphs import GraphStream
from contracts import GraphPart, NodeCompleted, NodeStarted, TopologyEdge
from tests.examples.conftest import EXAMPLES

if TYPE_CHECKING:
    from agent.graphs import GraphEvent, GraphOutcome, GraphRegistry, RegisteredGraph

CARD = "4111 1111 1111 1111"
CARD_DIGITS = re.compile(rb"4111\W{0,3}1111\W{0,3}1111\W{0,3}1111")


async def run(
    graph: RegisteredGraph, graph_input: Any, thread: str, modes: list[str], **configurable: Any
) -> tuple[list[GraphEvent], GraphOutcome]:
    config: Any = {"configurable": {"thread_id": thread, **configurable}}
    async with graph.graph_for(config) as compiled:
        stream = GraphStream(compiled, config, clock=SteppingClock(), modes=modes)
        events = [event async for event in stream.events(graph_input)]
        return events, await stream.outcome()


def nodes(events: list[GraphEvent]) -> list[tuple[str, str]]:
    return [
        ("started" if isinstance(event, NodeStarted) else event.outcome, event.node)
        for event in events
        if isinstance(event, NodeStarted | NodeCompleted)
    ]


def parts(events: list[GraphEvent], mode: str) -> list[GraphPart]:
    return [event for event in events if isinstance(event, GraphPart) and event.mode == mode]


async def test_the_config_serves_both_examples_with_its_env_and_dependencies(registry: GraphRegistry) -> None:
    assert registry.graph_ids == ["support", "react_agent", "research"]
    research = registry["research"]
    assert research.is_factory
    assert research.description == "Plans the subjects of a topic, researches each in a subgraph, and writes a report."
    assert (registry["react_agent"].name, research.name) == ("react_agent", "research_graph")
    assert os.environ["SHOP_NAME"] == "Nimbus Shop"
    assert str(EXAMPLES / "shared") in sys.path


async def test_the_topologies_have_their_cycles_and_conditional_edges(registry: GraphRegistry) -> None:
    react, research = registry["react_agent"].topology, registry["research"].topology

    assert [node.id for node in react.nodes] == ["agent", "tools"]
    assert react.edges == [
        TopologyEdge(source="agent", target="tools", conditional=True),
        TopologyEdge(source="tools", target="agent", conditional=False),
    ]
    assert {node.id for node in research.nodes} == {
        "planner",
        "write_report",
        "research_step:search",
        "research_step:summarize",
    }
    assert {(edge.source, edge.target, edge.conditional) for edge in research.edges} == {
        ("planner", "research_step:search", True),
        ("planner", "write_report", True),
        ("research_step:search", "research_step:summarize", False),
        ("research_step:summarize", "planner", False),
    }


async def test_the_react_agent_waits_for_approval_then_refunds(registry: GraphRegistry) -> None:
    agent = registry["react_agent"]
    question = {"messages": [{"role": "user", "content": "Please refund order A-1001."}]}

    events, paused = await run(agent, question, "t1", ["values", "messages-tuple", "updates"])

    assert nodes(events) == [
        ("started", "agent"),
        ("ok", "agent"),
        ("started", "tools"),
        ("ok", "tools"),
        ("started", "agent"),
        ("ok", "agent"),
        ("started", "tools"),
        ("interrupted", "tools"),
    ]
    said = "".join(
        message["content"]
        for message, _ in (part.data for part in parts(events, "messages"))
        if message["type"] == "AIMessageChunk"
    )
    assert said == "Let me look up order A-1001.I will ask for the refund of order A-1001."
    (approval,) = paused.interrupts
    assert approval.ns == []
    assert approval.value == {
        "action": "issue_refund",
        "args": {"order_id": "A-1001", "reason": "the customer asked"},
        "summary": "Refund 42.00 EUR for order A-1001 (Rain jacket)",
    }
    assert parts(events, "values")[-1].data["__interrupt__"][0]["id"] == approval.id

    events, done = await run(agent, Command(resume={"decision": "approve"}), "t1", ["updates"])

    assert nodes(events) == [("started", "tools"), ("ok", "tools"), ("started", "agent"), ("ok", "agent")]
    assert not done.paused
    assert done.completed().output["messages"][-1]["content"] == "Refunded 42.00 EUR for order A-1001."


async def test_a_rejected_refund_is_not_made(registry: GraphRegistry) -> None:
    agent = registry["react_agent"]
    await run(agent, {"messages": [{"role": "user", "content": "refund A-1002 please"}]}, "t1", ["updates"])

    _, done = await run(agent, Command(resume={"decision": "reject", "comment": "not eligible"}), "t1", ["updates"])

    assert done.values["messages"][-1]["content"] == "The refund of order A-1002 was rejected: not eligible"


async def test_a_card_number_in_the_conversation_reaches_no_payload(registry: GraphRegistry) -> None:
    question = {"messages": [{"role": "user", "content": f"Refund A-1001 to my card {CARD}"}]}
    modes = ["values", "messages-tuple", "updates", "custom", "debug", "checkpoints", "tasks"]

    events, paused = await run(registry["react_agent"], question, "t1", modes)

    frames = [msgspec.json.encode(payload) for payload in [*events, *paused.interrupts, paused.values]]
    # the card's digits in any spelling; not "4111" alone, which a random hex id (a checkpoint's) may hold
    assert not [frame for frame in frames if CARD_DIGITS.search(frame)]
    assert any(b"[REDACTED CARD]" in frame for frame in frames)


async def test_the_research_graph_loops_over_its_subgraph_and_reports(registry: GraphRegistry) -> None:
    research = registry["research"]

    events, done = await run(research, {"topic": "How do clouds make rain?"}, "t1", ["custom", "messages", "updates"])

    assert [node for outcome, node in nodes(events) if outcome == "ok"] == [
        "planner",
        "research_step:search",
        "research_step:summarize",
        "research_step",
        "planner",
        "research_step:search",
        "research_step:summarize",
        "research_step",
        "planner",
        "write_report",
    ]
    searches = parts(events, "custom")
    assert [part.data for part in searches] == [{"searching": "clouds"}, {"searching": "rain"}]
    assert [len(part.ns) for part in searches] == [1, 1]
    assert searches[0].ns != searches[1].ns
    assert all(part.ns[0].startswith("research_step:") for part in searches)
    tokens = parts(events, "messages")
    assert {tuple(part.ns) for part in tokens} == {(), tuple(searches[0].ns), tuple(searches[1].ns)}
    report = done.completed().output["report"]
    assert report.startswith("Report on How do clouds make rain. clouds: In short: Clouds form when rising air")
    assert "".join(part.data[0]["content"] for part in tokens if not part.ns) == report


async def test_the_research_factory_reads_the_runs_config(registry: GraphRegistry) -> None:
    _, done = await run(registry["research"], {"topic": "clouds, rain and wind"}, "t1", ["values"], max_steps=1)

    assert done.values["plan"] == ["clouds"]
    assert len(done.values["notes"]) == 1


@pytest.mark.local_model
@pytest.mark.parametrize("chat_model_variables", [{"HARNESS_CHAT_MODEL": "local"}], indirect=True)
async def test_the_research_graph_streams_the_real_local_models_tokens(registry: GraphRegistry) -> None:
    events, done = await run(registry["research"], {"topic": "Why does wind blow?"}, "t1", ["messages"], max_steps=1)

    tokens = [part.data[0]["content"] for part in parts(events, "messages")]
    assert [node for outcome, node in nodes(events) if outcome == "ok"][-1] == "write_report"
    assert len([token for token in tokens if token]) > 5
    assert done.values["report"].strip()
    assert done.values["report"] == "".join(
        part.data[0]["content"] for part in parts(events, "messages") if not part.ns
    )
