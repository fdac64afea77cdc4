"""What the served graphs say, turn by turn, and how a test reads an SDK stream.

The examples answer with their scripted fake chat model (``HARNESS_CHAT_MODEL`` unset), so every run is
reproducible: "Please refund order A-1001." has the ReAct agent look the order up, then stop at
``issue_refund``'s ``interrupt()`` until a ``Command(resume=...)`` decides; the research graph plans two
subjects for "How do clouds make rain?" and researches each in its subgraph. ``GATED_GRAPH`` is a project the
tests write: its ``hold`` node goes on once a file exists, so a run stays running for as long as a test needs
(until cancelled, if the file never comes), without a sleep in the test.
"""

from __future__ import annotations

import uuid
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from langgraph_sdk.schema import StreamPart

__all__ = (
    "ALICE",
    "BOB",
    "EXAMPLES",
    "GATED_GRAPH",
    "REFUND",
    "REFUND_APPROVAL",
    "REPORT",
    "SWALLOWING_GRAPH",
    "TOPIC",
    "agent_server_id",
    "collect",
    "data_of",
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
ALICE, BOB = "alice-token-0123456789abcdef", "bob-token-0123456789abcdef"

REFUND = {"messages": [{"role": "user", "content": "Please refund order A-1001."}]}
REFUND_APPROVAL = {
    "action": "issue_refund",
    "args": {"order_id": "A-1001", "reason": "the customer asked"},
    "summary": "Refund 42.00 EUR for order A-1001 (Rain jacket)",
}
"""The value ``issue_refund`` passes to ``interrupt()`` for the refund of order A-1001."""

TOPIC = {"topic": "How do clouds make rain?"}
REPORT = (
    "Report on How do clouds make rain. "
    "clouds: In short: Clouds form when rising air cools and its water vapour condenses on tiny particles. "
    "rain: In short: Rain falls when cloud droplets merge until they are too heavy to stay aloft."
)
"""The research graph's report on ``TOPIC``: its two subjects' notes, in the order it researched them."""

GATED_GRAPH = """
    import asyncio
    import operator
    from pathlib import Path
    from typing import Annotated

    from langgraph.config import get_stream_writer
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict


    class State(TypedDict, total=False):
        gate: str
        steps: Annotated[list[str], operator.add]


    def first(state: State) -> State:
        get_stream_writer()({"step": "first"})
        return {"steps": ["first"]}


    async def hold(state: State) -> State:
        get_stream_writer()({"holding": state["gate"]})
        while not Path(state["gate"]).exists():
            await asyncio.sleep(0.01)
        return {"steps": ["hold"]}


    def last(state: State) -> State:
        get_stream_writer()({"step": "last"})
        return {"steps": ["last"]}


    builder = StateGraph(State)
    builder.add_node("first", first)
    builder.add_node("hold", hold)
    builder.add_node("last", last)
    builder.add_edge(START, "first")
    builder.add_edge("first", "hold")
    builder.add_edge("hold", "last")
    builder.add_edge("last", END)
    graph = builder.compile(name="gated")
"""


SWALLOWING_GRAPH = """
    import asyncio
    from pathlib import Path

    from langgraph.config import get_stream_writer
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.state import CompiledStateGraph
    from typing_extensions import TypedDict


    class State(TypedDict, total=False):
        mark: str
        ticks: int


    class SwallowingGraph(CompiledStateGraph):
        # Its stream, read by the run's own task, swallows that task's first cancellation, as Python 3.11's
        # asyncio.wait_for (under redis-py's commands) does when the cancellation lands as the work it waits for
        # completes, and writes the file named by the input's "mark" when it does.
        async def astream(self, graph_input, *args, **kwargs):
            swallowed = False
            async for part in super().astream(graph_input, *args, **kwargs):
                yield part
                try:
                    await asyncio.sleep(0.2)  # where the run's task waits nearly all the time
                except asyncio.CancelledError:
                    if swallowed:
                        raise
                    swallowed = True
                    Path(graph_input["mark"]).write_text("swallowed")


    def tick(state: State) -> State:
        write = get_stream_writer()
        for number in range(100):
            write({"tick": number})
        return {"ticks": 100}


    builder = StateGraph(State)
    builder.add_node("tick", tick)
    builder.add_edge(START, "tick")
    builder.add_edge("tick", END)
    graph = builder.compile(name="swallowing")
    graph.__class__ = SwallowingGraph
"""
"""A project whose graph's stream swallows the first cancellation of the run's task, then goes on: its 100 parts
take 20 s."""


def agent_server_id(graph_id: str) -> str:
    """The assistant id the LangGraph Agent Server gives a graph (langgraph-api's ``NAMESPACE_GRAPH``)."""
    return str(uuid.uuid5(uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), graph_id))


async def collect(stream: AsyncIterator[StreamPart]) -> list[StreamPart]:
    """Every part of an SDK stream, read until the server closes it after ``end``."""
    async with aclosing(stream) as parts:
        return [part async for part in parts]


def data_of(parts: list[StreamPart], event: str) -> list[Any]:
    """The data of the parts named ``event``, in order."""
    return [part.data for part in parts if part.event == event]
