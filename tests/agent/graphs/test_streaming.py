"""Any graph's own streams as durable payloads: node events paired with their latency, the parts of the modes the
run asked for, the pause or the output at the end, each JSON-safe, redacted and bounded."""

from __future__ import annotations

import asyncio
import operator
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from agent.clock import SteppingClock
from agent.graphs import GraphStream, parse_modes
from agent.llm.scripted_model import ScriptedChatModel
from contracts import GraphPart, InterruptInfo, NodeCompleted, NodeStarted, RunCompleted

if TYPE_CHECKING:
    from collections.abc import Callable

    from langgraph.checkpoint.base import BaseCheckpointSaver

    from agent.graphs import GraphEvent

CARD = "4111 1111 1111 1111"


class State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]
    answer: str


def note(text: str) -> Callable[[State], State]:
    def node(state: State) -> State:
        return {"notes": [text]}

    return node


def build(*nodes: tuple[str, Any], subgraph: Any = None) -> StateGraph[State, None, State, State]:
    builder = StateGraph(State)
    previous = START
    for name, node in nodes:
        builder.add_node(name, node)
        builder.add_edge(previous, name)
        previous = name
    if subgraph is not None:
        builder.add_node("work", subgraph)
        builder.add_edge(previous, "work")
        previous = "work"
    builder.add_edge(previous, END)
    return builder


async def run(stream: GraphStream, graph_input: Any) -> list[GraphEvent]:
    return [event async for event in stream.events(graph_input)]


def config(thread: str = "t1") -> Any:
    return {"configurable": {"thread_id": thread}}


async def test_each_node_starts_then_completes_with_its_latency_and_its_parts_between(
    checkpointer: BaseCheckpointSaver[Any],
) -> None:
    graph = build(("plan", note("planned")), ("write", note("written"))).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(step_ns=2_000_000), modes=["updates"])

    events = await run(stream, {"notes": []})

    assert events == [
        NodeStarted(node="plan", step=1),
        GraphPart(mode="updates", ns=[], data={"plan": {"notes": ["planned"]}}),
        NodeCompleted(node="plan", step=1, latency_ms=2.0, outcome="ok", summary="updated notes"),
        NodeStarted(node="write", step=2),
        GraphPart(mode="updates", ns=[], data={"write": {"notes": ["written"]}}),
        NodeCompleted(node="write", step=2, latency_ms=2.0, outcome="ok", summary="updated notes"),
    ]
    outcome = await stream.outcome()
    assert not outcome.paused
    assert outcome.completed() == RunCompleted(output={"notes": ["planned", "written"]})


async def test_only_the_modes_the_run_asked_for_are_logged(checkpointer: BaseCheckpointSaver[Any]) -> None:
    def shout(state: State) -> State:
        get_stream_writer()({"progress": "half way"})
        return {"answer": "done"}

    graph = build(("shout", shout)).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(), modes=["custom", "values"])

    events = await run(stream, {"notes": []})

    parts = [event for event in events if isinstance(event, GraphPart)]
    assert [(part.mode, part.data) for part in parts] == [
        ("values", {"notes": []}),
        ("custom", {"progress": "half way"}),
        ("values", {"notes": [], "answer": "done"}),
    ]
    assert stream.translator.stream_modes == ["custom", "values", "debug"]


async def test_a_subgraphs_nodes_are_named_by_their_path_and_carry_its_namespace(
    checkpointer: BaseCheckpointSaver[Any],
) -> None:
    inner = build(("first", note("1")), ("second", note("2"))).compile()
    graph = build(("plan", note("p")), subgraph=inner).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(), modes=["updates"])

    events = await run(stream, {"notes": []})

    nodes = [(type(event).__name__, event.node, event.ns) for event in events if not isinstance(event, GraphPart)]
    namespace = nodes[3][2]
    assert len(namespace) == 1
    assert namespace[0].startswith("work:")
    assert nodes == [
        ("NodeStarted", "plan", []),
        ("NodeCompleted", "plan", []),
        ("NodeStarted", "work", []),
        ("NodeStarted", "work:first", namespace),
        ("NodeCompleted", "work:first", namespace),
        ("NodeStarted", "work:second", namespace),
        ("NodeCompleted", "work:second", namespace),
        ("NodeCompleted", "work", []),
    ]
    inner_updates = [event for event in events if isinstance(event, GraphPart) and event.ns]
    assert [part.data for part in inner_updates] == [{"first": {"notes": ["1"]}}, {"second": {"notes": ["2"]}}]
    assert {tuple(part.ns) for part in inner_updates} == {tuple(namespace)}


async def test_an_interrupt_pauses_the_run_and_a_resume_finishes_it(checkpointer: BaseCheckpointSaver[Any]) -> None:
    def approve(state: State) -> State:
        answer = interrupt({"action": "issue_refund", "args": {"order_id": "A-1"}, "summary": "Refund A-1"})
        return {"answer": answer["decision"]}

    graph = build(subgraph=build(("approve", approve)).compile()).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(), modes=["values"])

    paused_events = await run(stream, {"notes": []})
    paused = await stream.outcome()

    waiting = [event for event in paused_events if isinstance(event, NodeCompleted) and event.outcome == "interrupted"]
    assert [(event.node, event.summary) for event in waiting] == [
        ("work:approve", "waiting: Refund A-1"),
        ("work", "waiting: Refund A-1"),
    ]
    (pending,) = paused.interrupts
    assert pending == InterruptInfo(
        id=pending.id,
        value={"action": "issue_refund", "args": {"order_id": "A-1"}, "summary": "Refund A-1"},
        ns=waiting[0].ns,
    )
    assert paused.values == {"notes": []}
    last_root_values = [event for event in paused_events if isinstance(event, GraphPart) and not event.ns][-1]
    assert last_root_values.data["__interrupt__"] == [
        {"value": pending.value, "id": pending.id, "response_schema": None}
    ]

    resumed = GraphStream(graph, config(), clock=SteppingClock(), modes=["values"])
    await run(resumed, Command(resume={"decision": "approve"}))
    finished = await resumed.outcome()

    assert not finished.paused
    assert finished.completed() == RunCompleted(output={"notes": [], "answer": "approve"})


async def test_a_failing_node_completes_as_an_error_and_is_the_node_the_run_blames(
    checkpointer: BaseCheckpointSaver[Any],
) -> None:
    def boom(state: State) -> State:
        raise ValueError(f"card {CARD} was declined\nand a second line")

    inner = build(("boom", boom)).compile()
    graph = build(("plan", note("p")), subgraph=inner).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(), modes=["updates"])
    events: list[GraphEvent] = []

    async def collect() -> None:
        async for event in stream.events({"notes": []}):
            events.append(event)

    with pytest.raises(ValueError, match="was declined"):
        await collect()

    failed = [
        (event.node, event.summary) for event in events if isinstance(event, NodeCompleted) and event.outcome == "error"
    ]
    assert failed == [
        ("work:boom", "ValueError: card [REDACTED CARD] was declined"),
        ("work", "ValueError: card [REDACTED CARD] was declined"),
    ]
    assert stream.current_node == "work:boom"


async def test_an_unexpected_errors_message_stays_on_the_server(checkpointer: BaseCheckpointSaver[Any]) -> None:
    def read(state: State) -> State:
        raise OSError("/srv/secrets/db.conf is not readable")

    stream = GraphStream(build(("read", read)).compile(checkpointer=checkpointer), config(), clock=SteppingClock())

    with pytest.raises(OSError, match="not readable"):
        await run(stream, {"notes": []})

    assert stream.current_node == "read"
    assert stream.translator.current_node == "read"


async def test_a_cancelled_run_blames_the_node_that_was_running(checkpointer: BaseCheckpointSaver[Any]) -> None:
    entered = asyncio.Event()

    async def wait_forever(state: State) -> State:
        entered.set()
        await asyncio.Event().wait()
        return {}

    graph = build(("plan", note("p")), ("wait", wait_forever)).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock())
    task = asyncio.create_task(run(stream, {"notes": []}))
    await asyncio.wait_for(entered.wait(), timeout=30)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert stream.current_node == "wait"


async def test_no_card_number_a_node_writes_reaches_any_payload(checkpointer: BaseCheckpointSaver[Any]) -> None:
    model = ScriptedChatModel(script=lambda messages: f"I stored your card {CARD}.")

    async def leak(state: State) -> State:
        get_stream_writer()({"card": CARD})
        reply = await model.ainvoke([HumanMessage(f"my card is {CARD}")])
        decision = interrupt({"summary": f"charge {CARD}?"})
        return {"notes": [f"card {CARD}", reply.text], "answer": f"{decision} {CARD}"}

    graph = build(("leak", leak)).compile(checkpointer=checkpointer)
    modes = ["values", "updates", "messages", "custom", "debug", "checkpoints", "tasks", "events"]
    payloads: list[Any] = []
    for graph_input in ({"notes": [f"from the user: {CARD}"]}, Command(resume=f"yes {CARD}")):
        stream = GraphStream(graph, config(), clock=SteppingClock(), modes=modes)
        payloads += await run(stream, graph_input)
        outcome = await stream.outcome()
        payloads += [*outcome.interrupts, outcome.completed()]

    encoded = [msgspec.json.encode(payload) for payload in payloads]
    assert {part.mode for part in payloads if isinstance(part, GraphPart)} == set(parse_modes(modes))
    assert not [frame for frame in encoded if b"4111" in frame]
    assert any(b"[REDACTED CARD]" in frame for frame in encoded)


async def test_a_part_too_large_for_the_log_is_replaced_by_a_marker(checkpointer: BaseCheckpointSaver[Any]) -> None:
    def grow(state: State) -> State:
        return {"answer": "x" * 50_000}

    graph = build(("grow", grow)).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(), modes=["updates", "values"], limit_bytes=10_000)

    events = await run(stream, {"notes": []})
    outcome = await stream.outcome()

    first, *cut = [event.data for event in events if isinstance(event, GraphPart)]
    assert first == {"notes": []}
    assert [(part["__cut__"]["limit_bytes"], part["__cut__"]["size_bytes"] > 10_000) for part in cut] == [
        (10_000, True),
        (10_000, True),
    ]
    assert outcome.values["__cut__"]["limit_bytes"] == 10_000
    assert all(len(msgspec.json.encode(event)) < 10_100 for event in events)
    assert (await graph.aget_state(config())).values["answer"] == "x" * 50_000


async def test_model_tokens_are_message_chunks_with_their_metadata(checkpointer: BaseCheckpointSaver[Any]) -> None:
    model = ScriptedChatModel(script=lambda messages: AIMessage("It has shipped today."))

    async def answer(state: State) -> State:
        reply = await model.ainvoke([HumanMessage("where is my order?")])
        return {"answer": reply.text}

    graph = build(("answer", answer)).compile(checkpointer=checkpointer)
    stream = GraphStream(graph, config(), clock=SteppingClock(), modes=["messages-tuple"])

    events = await run(stream, {"notes": []})

    chunks = [event.data for event in events if isinstance(event, GraphPart)]
    assert len(chunks) == 4
    assert "".join(message["content"] for message, _ in chunks) == "It has shipped today."
    assert {message["type"] for message, _ in chunks} == {"AIMessageChunk"}
    assert chunks[-1][0]["chunk_position"] == "last"
    assert {metadata["langgraph_node"] for _, metadata in chunks} == {"answer"}


def test_stream_modes_are_langgraphs_with_messages_tuple_as_messages() -> None:
    assert parse_modes(["messages-tuple", "values", "messages", "values", "events"]) == ("messages", "values", "events")
    with pytest.raises(ValueError, match="stream mode 'logs' is not one of"):
        parse_modes(["values", "logs"])


async def test_asking_for_events_adds_langchains_callback_events_and_changes_no_other_part(
    checkpointer: BaseCheckpointSaver[Any],
) -> None:
    model = ScriptedChatModel(script=lambda messages: AIMessage("Planned."))

    async def plan(state: State) -> State:
        reply = await model.ainvoke([HumanMessage("plan it")])
        return {"notes": [reply.text]}

    graph = build(("plan", plan), ("write", note("written"))).compile(checkpointer=checkpointer)
    modes = ["values", "updates", "custom"]
    plain = await run(GraphStream(graph, config("plain"), clock=SteppingClock(), modes=modes), {"notes": []})
    with_events = await run(
        GraphStream(graph, config("events"), clock=SteppingClock(), modes=[*modes, "events"]), {"notes": []}
    )

    callback_events = [event.data for event in with_events if isinstance(event, GraphPart) and event.mode == "events"]
    assert [event for event in with_events if not (isinstance(event, GraphPart) and event.mode == "events")] == plain
    kinds = [event["event"] for event in callback_events]
    assert kinds[0] == "on_chain_start"
    assert kinds[-1] == "on_chain_end"
    assert {"on_chat_model_start", "on_chat_model_stream", "on_chat_model_end"} <= set(kinds)
    tokens = [
        event["data"]["chunk"]["content"] for event in callback_events if event["event"] == "on_chat_model_stream"
    ]
    assert "".join(tokens) == "Planned."
    assert {event["name"] for event in callback_events if event["event"] == "on_chain_start"} >= {"plan", "write"}
