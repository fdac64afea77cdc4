"""A graph that streams a long burst without awaiting does not hold the server: requests are answered meanwhile.

A model or a node may hand LangGraph thousands of parts at once (a firehose, a cached answer, a loop of
``get_stream_writer()`` calls). The run commits each part as an event; if it did so for the whole burst in one
go, every other request of this instance (a client rejoining with ``Last-Event-ID``, a health check) would wait
for the burst's end. Observed here by the run's snapshot: read while the burst streams, it stands mid-run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import msgspec
import pytest
from langgraph_sdk import get_client

from tests.support.graph_projects import write_project

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

BURST = 5_000
BURST_GRAPH = """
    from langgraph.config import get_stream_writer
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict


    class State(TypedDict):
        n: int


    async def burst(state: State) -> State:
        write = get_stream_writer()
        for index in range(state["n"]):
            write({"index": index})
        return {"n": state["n"]}


    graph = StateGraph(State).add_node("burst", burst).add_edge(START, "burst").compile()
"""


@pytest.fixture
def bursting(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    config = write_project(
        tmp_path / "burst", {"burst.py": BURST_GRAPH, "langgraph.json": {"graphs": {"burst": "./burst.py:graph"}}}
    )
    return serve(msgspec.structs.replace(settings, graphs_config=config))


async def test_a_request_made_during_a_burst_is_answered_before_the_burst_ends(bursting: LiveServer) -> None:
    async with get_client(url=bursting.url, timeout=60) as sdk, httpx.AsyncClient(base_url=bursting.url) as http:
        thread = await sdk.threads.create()
        run_id = None
        seen_mid_run: int | None = None
        customs = 0
        async for part in sdk.runs.stream(thread["thread_id"], "burst", input={"n": BURST}, stream_mode="custom"):
            if part.event == "metadata":
                run_id = part.data["run_id"]
            elif part.event == "custom":
                customs += 1
                if seen_mid_run is None:
                    snapshot = (await http.get(f"/runs/{run_id}")).raise_for_status().json()
                    seen_mid_run = snapshot["last_seq"]

    assert customs == BURST
    assert seen_mid_run is not None
    assert seen_mid_run < BURST, "the run's snapshot was read only after the whole burst was committed"
