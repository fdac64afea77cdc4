"""Double-texting, as langgraph-sdk asks for it: a run asked for while its thread is busy is queued (``enqueue``, the
default), refused (``reject``), starts once the busy run has ended (``interrupt``), or once it has ended and been
taken back out of the thread (``rollback``).

Each test runs on the embedded stores and on fresh shared ones (``settings``); the gated graph's runs hold at a file
of their own until the test writes it, so a run is busy for exactly as long as a test needs, with no sleep.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import pytest
from langgraph_sdk.errors import ConflictError, NotFoundError, UnprocessableEntityError

from tests.e2e.agent_protocol.turns import REFUND, collect, data_of

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

LOOKUP = {"messages": [{"role": "user", "content": "Where is my order A-1002?"}]}
ANOTHER_LOOKUP = {"messages": [{"role": "user", "content": "And what about order A-1001?"}]}


async def held(client: LangGraphClient, thread_id: str, run_id: str) -> None:
    """Return once the gated run ``run_id`` (asked for with ``stream_mode="custom"``) holds at its gate: it has
    started (a queued run's stream waits for it)."""
    async with aclosing(client.runs.join_stream(thread_id, run_id, stream_mode="custom")) as parts:
        async for part in parts:
            if part.event == "custom" and "holding" in part.data:
                return
    raise AssertionError(f"run {run_id} ended without holding")


async def statuses(client: LangGraphClient, thread_id: str) -> dict[str, str]:
    return {run["run_id"]: run["status"] for run in await client.runs.list(thread_id)}


def dangling_tool_calls(messages: list[dict[str, Any]]) -> list[str]:
    """The ids of the tool calls of AI messages that no tool message answers."""
    answered = {message.get("tool_call_id") for message in messages if message.get("type") == "tool"}
    return [
        call["id"]
        for message in messages
        if message.get("type") == "ai"
        for call in message.get("tool_calls") or ()
        if call["id"] not in answered
    ]


async def test_runs_enqueued_on_a_busy_thread_are_pending_then_run_in_order(
    gated_sdk: LangGraphClient, tmp_path: Path
) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    gates = [tmp_path / f"gate-{n}" for n in range(4)]
    first = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gates[0])}, stream_mode="custom")
    await held(gated_sdk, thread_id, first["run_id"])

    second = await gated_sdk.runs.create(
        thread_id, "gated", input={"gate": str(gates[1])}, stream_mode="custom", multitask_strategy="enqueue"
    )
    third = await gated_sdk.runs.create(
        thread_id, "gated", input={"gate": str(gates[2])}, stream_mode="custom"
    )  # enqueue by default
    fourth = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gates[3])}, stream_mode="custom")
    queued = await statuses(gated_sdk, thread_id)
    cancelled = await gated_sdk.runs.cancel(thread_id, third["run_id"], wait=True)
    with pytest.raises(ConflictError) as refused:
        await gated_sdk.runs.create(thread_id, "gated", input={"gate": "x"}, multitask_strategy="reject")

    gates[0].touch()
    await held(gated_sdk, thread_id, second["run_id"])
    while_second = await statuses(gated_sdk, thread_id)
    gates[1].touch()
    await held(gated_sdk, thread_id, fourth["run_id"])
    gates[3].touch()
    ended = await gated_sdk.runs.join(thread_id, fourth["run_id"])

    assert (second["status"], third["status"], fourth["status"]) == ("pending", "pending", "pending")
    assert (second["multitask_strategy"], third["multitask_strategy"]) == ("enqueue", "enqueue")
    assert queued == {
        first["run_id"]: "running",
        second["run_id"]: "pending",
        third["run_id"]: "pending",
        fourth["run_id"]: "pending",
    }
    assert cancelled["__error__"]["error"] == "cancelled", "a pending run is cancelled before it starts"
    assert refused.value.body["code"] == "session_busy"  # type: ignore[index]
    assert refused.value.body["run_id"] == first["run_id"]  # type: ignore[index]
    assert while_second == {
        first["run_id"]: "success",
        second["run_id"]: "running",
        third["run_id"]: "interrupted",
        fourth["run_id"]: "pending",
    }, "one run of the thread at a time, in the order asked for"
    assert ended["steps"] == ["first", "hold", "last"] * 3, "the cancelled run never ran"
    assert set((await statuses(gated_sdk, thread_id)).values()) == {"success", "interrupted"}


async def test_a_stream_and_a_wait_enqueued_on_a_busy_thread_follow_their_run_once_it_starts(
    gated_sdk: LangGraphClient, tmp_path: Path
) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    gate = tmp_path / "gate"
    first = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gate)}, stream_mode="custom")
    await held(gated_sdk, thread_id, first["run_id"])
    gate.touch()  # the first run goes on; the next ones may be queued or start at once: the same to the client

    streamed = await collect(gated_sdk.runs.stream(thread_id, "gated", input={"gate": str(gate)}, stream_mode="custom"))
    waited = await gated_sdk.runs.wait(thread_id, "gated", input={"gate": str(gate)})

    assert streamed[0].event == "metadata"
    assert data_of(streamed, "custom") == [{"step": "first"}, {"holding": str(gate)}, {"step": "last"}]
    assert streamed[-1].data == {"run_id": streamed[0].data["run_id"], "status": "success"}
    assert waited["steps"] == ["first", "hold", "last"] * 3


async def test_a_rolled_back_run_leaves_the_thread_as_it_was_before_it(sdk: LangGraphClient) -> None:
    thread_id = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(thread_id, "react_agent", input=LOOKUP)
    before = await sdk.threads.get_state(thread_id)
    history_before = await sdk.threads.get_history(thread_id, limit=100)
    (kept,) = await sdk.runs.list(thread_id)

    paused = await sdk.runs.wait(thread_id, "react_agent", input=REFUND)  # waits at the refund's approval
    (waiting,) = [run for run in await sdk.runs.list(thread_id) if run["run_id"] != kept["run_id"]]
    dangling = dangling_tool_calls((await sdk.threads.get_state(thread_id))["values"]["messages"])
    await sdk.runs.cancel(thread_id, waiting["run_id"], action="rollback")
    after = await sdk.threads.get_state(thread_id)
    history_after = await sdk.threads.get_history(thread_id, limit=100)
    with pytest.raises(NotFoundError):
        await sdk.runs.get(thread_id, waiting["run_id"])

    assert "__interrupt__" in paused
    assert len(dangling) == 1, "the refund's tool call waits for its approval"
    assert after == before
    assert history_after == history_before
    assert dangling_tool_calls(after["values"]["messages"]) == []
    assert [run["run_id"] for run in await sdk.runs.list(thread_id)] == [kept["run_id"]]
    assert (await sdk.threads.get(thread_id))["status"] == "idle"


async def test_a_run_with_rollback_takes_the_busy_run_back_out_before_it_starts(sdk: LangGraphClient) -> None:
    thread_id = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(thread_id, "react_agent", input=LOOKUP)
    history_before = await sdk.threads.get_history(thread_id, limit=100)
    (kept,) = await sdk.runs.list(thread_id)
    await sdk.runs.wait(thread_id, "react_agent", input=REFUND)
    (rolled_back,) = [run for run in await sdk.runs.list(thread_id) if run["run_id"] != kept["run_id"]]

    answer = await sdk.runs.wait(thread_id, "react_agent", input=ANOTHER_LOOKUP, multitask_strategy="rollback")
    history = await sdk.threads.get_history(thread_id, limit=100)
    runs = await sdk.runs.list(thread_id)

    messages = answer["messages"]
    assert [message["content"] for message in messages if message["type"] == "human"] == [
        LOOKUP["messages"][0]["content"],
        ANOTHER_LOOKUP["messages"][0]["content"],
    ], "nothing of the rolled-back run's input is left"
    assert dangling_tool_calls(messages) == []
    assert history[-len(history_before) :] == history_before, "the thread's history goes on from before it"
    assert all(state["metadata"].get("run_id") != rolled_back["run_id"] for state in history)
    assert {run["run_id"] for run in runs} == {kept["run_id"], runs[0]["run_id"]}
    assert rolled_back["run_id"] not in {run["run_id"] for run in runs}
    assert runs[0]["multitask_strategy"] == "rollback"


async def test_a_run_with_interrupt_ends_the_running_run_and_the_queued_ones(
    gated_sdk: LangGraphClient, tmp_path: Path
) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    running = await gated_sdk.runs.create(
        thread_id, "gated", input={"gate": str(tmp_path / "never")}, stream_mode="custom"
    )
    await held(gated_sdk, thread_id, running["run_id"])
    queued = await gated_sdk.runs.create(
        thread_id, "gated", input={"gate": str(tmp_path / "never")}, stream_mode="custom"
    )
    gate = tmp_path / "gate"
    gate.touch()

    ended = await gated_sdk.runs.wait(thread_id, "gated", input={"gate": str(gate)}, multitask_strategy="interrupt")
    found = await statuses(gated_sdk, thread_id)

    assert queued["status"] == "pending"
    assert found[running["run_id"]] == "interrupted"
    assert found[queued["run_id"]] == "interrupted"
    assert ended["steps"] == ["first", "first", "hold", "last"], "the interrupted run's first step stays"


@pytest.mark.parametrize("strategy", ["later", None, 5])
async def test_an_unknown_strategy_is_a_422(gated_sdk: LangGraphClient, strategy: object) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    body = {"assistant_id": "gated", "input": {"gate": "x"}, "multitask_strategy": strategy}

    with pytest.raises(UnprocessableEntityError) as refused:
        await gated_sdk.http.post(f"/threads/{thread_id}/runs", json=body)

    assert refused.value.body["code"] in {"run_request_invalid", "validation_failed"}  # type: ignore[index]
    assert await gated_sdk.runs.list(thread_id) == []
