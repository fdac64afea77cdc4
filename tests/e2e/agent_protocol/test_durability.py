"""A run outlives its connection: a client that drops rejoins with ``Last-Event-ID`` and gets exactly the rest;
a running run is cancelled from another connection; a finished run replays whole."""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from langgraph_sdk import get_client

from tests.e2e.agent_protocol.turns import REFUND, collect, data_of
from tests.support.tcp_proxy import TcpProxy

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient
    from langgraph_sdk.schema import StreamPart

    from tests.e2e.conftest import LiveServer

MODES: Any = ["updates", "custom"]


def seen(parts: list[StreamPart]) -> list[tuple[str, Any, str | None]]:
    return [(part.event, part.data, part.id) for part in parts]


async def test_a_dropped_stream_rejoined_after_its_last_event_gets_exactly_the_rest(
    gated_sdk: LangGraphClient, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    thread = await gated_sdk.threads.create()
    head: list[StreamPart] = []
    async with aclosing(
        gated_sdk.runs.stream(thread["thread_id"], "gated", input={"gate": str(gate)}, stream_mode=MODES)
    ) as stream:
        async for part in stream:
            head.append(part)
            if part.event == "custom" and "holding" in part.data:
                break  # the connection drops while the run holds
    run_id = head[0].data["run_id"]
    gate.touch()

    rest = await collect(
        gated_sdk.runs.join_stream(thread["thread_id"], run_id, stream_mode=MODES, last_event_id=head[-1].id)
    )
    whole = await collect(gated_sdk.runs.join_stream(thread["thread_id"], run_id, stream_mode=MODES))

    assert data_of(head, "custom") == [{"step": "first"}, {"holding": str(gate)}]
    assert data_of(rest, "custom") == [{"step": "last"}], "the rest begins after the last event received"
    assert rest[-1].data == {"run_id": run_id, "status": "success"}
    assert seen(head) + seen(rest) == seen(whole), "nothing lost, nothing twice"
    ids = [int(part.id) for part in whole if part.id is not None]
    assert ids == sorted(set(ids))
    state = await gated_sdk.threads.get_state(thread["thread_id"])
    assert state["values"]["steps"] == ["first", "hold", "last"]


async def test_the_sdk_reconnects_a_cut_stream_and_gets_exactly_the_rest(gated: LiveServer, tmp_path: Path) -> None:
    """The connection is cut under the SDK (a proxy drops it): ``runs.stream`` reconnects by itself to the run's
    ``Location`` with the ``Last-Event-ID`` it has, and goes on as if nothing happened."""
    gate = tmp_path / "gate"
    proxy = await TcpProxy("127.0.0.1", gated.port).open()
    try:
        async with get_client(url=f"http://127.0.0.1:{proxy.port}", timeout=30) as client:
            thread = await client.threads.create()
            received: list[StreamPart] = []
            stream = client.runs.stream(thread["thread_id"], "gated", input={"gate": str(gate)}, stream_mode=MODES)
            async with aclosing(stream) as parts:
                async for part in parts:
                    received.append(part)
                    if part.event == "custom" and "holding" in part.data:
                        await proxy.cut()
                        await proxy.open()
                        gate.touch()
            run_id = received[0].data["run_id"]
            whole = await collect(client.runs.join_stream(thread["thread_id"], run_id, stream_mode=MODES))
    finally:
        await proxy.cut()

    assert data_of(received, "custom") == [{"step": "first"}, {"holding": str(gate)}, {"step": "last"}]
    assert received[-1].data == {"run_id": run_id, "status": "success"}
    assert seen(received) == seen(whole), "nothing lost, nothing twice, nothing the stream did not ask for"


async def test_a_finished_run_replays_from_any_event(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()
    live = await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND, stream_mode="updates"))
    run_id = live[0].data["run_id"]

    replayed = await collect(sdk.runs.join_stream(thread["thread_id"], run_id, stream_mode="updates"))
    unnamed = await collect(sdk.runs.join_stream(thread["thread_id"], run_id))
    tails = [
        await collect(sdk.runs.join_stream(thread["thread_id"], run_id, stream_mode="updates", last_event_id=part.id))
        for part in live[:-1]
    ]

    assert seen(replayed) == seen(live)
    assert seen(unnamed) == seen(live), "a join that names no mode gets those the run was asked for"
    for index, tail in enumerate(tails):
        assert seen(tail) == seen(live[index + 1 :]), f"after {live[index].id}"


async def test_a_running_run_is_cancelled(gated_sdk: LangGraphClient, tmp_path: Path) -> None:
    thread = await gated_sdk.threads.create()
    run = await gated_sdk.runs.create(
        thread["thread_id"], "gated", input={"gate": str(tmp_path / "never")}, stream_mode="custom"
    )
    followed: list[StreamPart] = []
    async with aclosing(gated_sdk.runs.join_stream(thread["thread_id"], run["run_id"], stream_mode="custom")) as stream:
        async for part in stream:
            followed.append(part)
            if part.event == "custom" and "holding" in part.data:
                assert (await gated_sdk.runs.get(thread["thread_id"], run["run_id"]))["status"] == "running"
                await gated_sdk.runs.cancel(thread["thread_id"], run["run_id"])

    assert followed[-1].data == {"run_id": run["run_id"], "status": "interrupted"}
    assert data_of(followed, "error")[0]["error"] == "cancelled"
    assert (await gated_sdk.runs.get(thread["thread_id"], run["run_id"]))["status"] == "interrupted"
    assert (await gated_sdk.threads.get(thread["thread_id"]))["status"] == "idle"
    state = await gated_sdk.threads.get_state(thread["thread_id"])
    assert state["values"]["steps"] == ["first"], "the held node never finished"


async def test_a_cancel_whose_cancellation_is_swallowed_still_ends_the_run(
    swallowing_sdk: LangGraphClient, tmp_path: Path
) -> None:
    mark = tmp_path / "swallowed"
    thread = await swallowing_sdk.threads.create()
    run = await swallowing_sdk.runs.create(
        thread["thread_id"], "swallowing", input={"mark": str(mark)}, stream_mode="custom"
    )
    followed: list[StreamPart] = []
    stream = swallowing_sdk.runs.join_stream(thread["thread_id"], run["run_id"], stream_mode="custom")
    async with aclosing(stream) as parts:
        async for part in parts:
            followed.append(part)
            if part.event == "custom" and part.data == {"tick": 3}:
                await swallowing_sdk.runs.cancel(thread["thread_id"], run["run_id"])

    assert mark.read_text() == "swallowed", "the cancellation was lost on its way"
    ticks = [part.data["tick"] for part in followed if part.event == "custom"]
    assert ticks[-1] < 20, "the run ends at the next part it streams, not after its 100"
    assert data_of(followed, "error")[0]["error"] == "cancelled"
    assert (await swallowing_sdk.runs.get(thread["thread_id"], run["run_id"]))["status"] == "interrupted"
