"""A thread's and a run's life cycle through langgraph-sdk: copying a thread, deleting a run, and a thread's
queued runs going with it when it is deleted.

Each test runs on the embedded stores and on fresh shared ones (``settings``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import ConflictError, NotFoundError

from tests.e2e.agent_protocol.test_double_texting import LOOKUP, held, statuses
from tests.e2e.agent_protocol.turns import ALICE, BOB, REFUND

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

    from tests.e2e.conftest import LiveServer

ANOTHER_LOOKUP = {"messages": [{"role": "user", "content": "And what about order A-1001?"}]}


async def test_a_copy_has_the_sources_state_and_goes_on_by_itself(sdk: LangGraphClient) -> None:
    source = await sdk.threads.create(metadata={"customer": "c-1"})
    source_id = source["thread_id"]
    await sdk.runs.wait(source_id, "react_agent", input=LOOKUP)
    state = await sdk.threads.get_state(source_id)
    history = await sdk.threads.get_history(source_id, limit=100)

    copy = await sdk.threads.copy(source_id)
    copy_id = copy["thread_id"]
    copied_state = await sdk.threads.get_state(copy_id)
    copied_history = await sdk.threads.get_history(copy_id, limit=100)
    copied_runs = await sdk.runs.list(copy_id)
    await sdk.runs.wait(copy_id, "react_agent", input=ANOTHER_LOOKUP)

    assert copy_id != source_id
    assert copy_id.startswith("s_")
    assert copy["metadata"] == (await sdk.threads.get(source_id))["metadata"]
    assert copy["metadata"]["customer"] == "c-1"
    assert copy["metadata"]["graph_id"] == "react_agent"
    assert copy["status"] == "idle"
    assert copy["values"] == state["values"]
    assert copied_state["values"] == state["values"]
    assert copied_state["checkpoint"]["checkpoint_id"] == state["checkpoint"]["checkpoint_id"]
    assert copied_state["checkpoint"]["thread_id"] == copy_id
    assert [past["values"] for past in copied_history] == [past["values"] for past in history]
    assert copied_runs == [], "the runs stay with the thread they ran on"
    assert await sdk.threads.get_state(source_id) == state, "a run on the copy leaves the source as it was"
    assert len((await sdk.threads.get_state(copy_id))["values"]["messages"]) > len(state["values"]["messages"])


async def test_a_copy_of_a_thread_waiting_at_an_interrupt_shows_the_interrupt(sdk: LangGraphClient) -> None:
    source_id = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(source_id, "react_agent", input=REFUND)

    copy = await sdk.threads.copy(source_id)
    copied = await sdk.threads.get_state(copy["thread_id"])
    with pytest.raises(httpx.HTTPStatusError) as resumed:
        await sdk.runs.wait(copy["thread_id"], "react_agent", command={"resume": {"decision": "approve"}})
    went_on = await sdk.runs.wait(copy["thread_id"], "react_agent", input=LOOKUP)

    assert copied["values"] == (await sdk.threads.get_state(source_id))["values"]
    assert copied["interrupts"], "the interrupt is in the copied checkpoint"
    assert copy["status"] == "idle", "the waiting run stays the source's"
    assert resumed.value.response.status_code == 409
    assert resumed.value.response.json()["code"] == "run_not_paused"
    assert "__error__" not in went_on
    assert (await sdk.threads.get(source_id))["status"] == "interrupted"


async def test_a_thread_without_checkpoints_is_copied_empty(sdk: LangGraphClient) -> None:
    source_id = (await sdk.threads.create(metadata={"n": 1}))["thread_id"]

    copy = await sdk.threads.copy(source_id)

    assert copy["values"] is None
    assert copy["metadata"]["n"] == 1
    assert (await sdk.threads.get_state(copy["thread_id"]))["checkpoint"] is None


async def test_a_busy_thread_is_copied_as_far_as_its_checkpoints_are_committed(
    gated_sdk: LangGraphClient, tmp_path: Path
) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    gate = tmp_path / "gate"
    run = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gate)}, stream_mode="custom")
    await held(gated_sdk, thread_id, run["run_id"])

    copy = await gated_sdk.threads.copy(thread_id)
    gate.touch()
    ended = await gated_sdk.runs.join(thread_id, run["run_id"])

    assert copy["values"] == {"gate": str(gate), "steps": ["first"]}, "the checkpoint before the held node"
    assert ended["steps"] == ["first", "hold", "last"]
    assert (await gated_sdk.threads.get_state(copy["thread_id"]))["values"]["steps"] == ["first"]


async def test_copying_an_unknown_or_another_subjects_thread_is_not_found(guarded: LiveServer) -> None:
    async with (
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {ALICE}"}, timeout=30) as alice,
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {BOB}"}, timeout=30) as bob,
    ):
        alices = (await alice.threads.create())["thread_id"]
        await alice.runs.wait(alices, "react_agent", input=LOOKUP)
        with pytest.raises(NotFoundError) as foreign:
            await bob.threads.copy(alices)
        with pytest.raises(NotFoundError) as unknown:
            await alice.threads.copy("s_nothing_here")
        copy = await alice.threads.copy(alices)
        with pytest.raises(NotFoundError):
            await bob.threads.get(copy["thread_id"])

    assert foreign.value.code == unknown.value.code == "session_not_found"
    assert foreign.value.response.headers["content-type"].startswith("application/problem+json")


async def test_a_deleted_run_is_gone_and_the_thread_keeps_its_state(sdk: LangGraphClient) -> None:
    thread_id = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(thread_id, "react_agent", input=LOOKUP)
    (first,) = await sdk.runs.list(thread_id)
    await sdk.runs.wait(thread_id, "react_agent", input=ANOTHER_LOOKUP)
    state = await sdk.threads.get_state(thread_id)

    await sdk.runs.delete(thread_id, first["run_id"])

    with pytest.raises(NotFoundError) as gone:
        await sdk.runs.get(thread_id, first["run_id"])
    assert gone.value.code == "run_not_found"
    assert first["run_id"] not in {run["run_id"] for run in await sdk.runs.list(thread_id)}
    assert len(await sdk.runs.list(thread_id)) == 1
    assert await sdk.threads.get_state(thread_id) == state, "the checkpoints are the thread's, not the run's"
    with pytest.raises(NotFoundError):
        await sdk.runs.delete(thread_id, first["run_id"])
    with pytest.raises(httpx.HTTPStatusError) as not_joined:
        await sdk.runs.join(thread_id, first["run_id"])
    assert not_joined.value.response.status_code == 404


async def test_a_run_not_ended_is_not_deleted(gated_sdk: LangGraphClient, tmp_path: Path) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    gate = tmp_path / "gate"
    running = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gate)}, stream_mode="custom")
    await held(gated_sdk, thread_id, running["run_id"])
    pending = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gate)})

    refused = []
    for run in (running, pending):
        with pytest.raises(ConflictError) as conflict:
            await gated_sdk.runs.delete(thread_id, run["run_id"])
        refused.append(conflict.value)
    gate.touch()
    await gated_sdk.runs.join(thread_id, running["run_id"])
    await gated_sdk.runs.join(thread_id, pending["run_id"])
    await gated_sdk.runs.delete(thread_id, pending["run_id"])

    assert [error.code for error in refused] == ["run_not_finished", "run_not_finished"]
    assert refused[0].response.headers["content-type"].startswith("application/problem+json")
    assert list(await statuses(gated_sdk, thread_id)) == [running["run_id"]]


async def test_a_run_waiting_at_an_interrupt_is_not_deleted(sdk: LangGraphClient) -> None:
    thread_id = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(thread_id, "react_agent", input=REFUND)
    (waiting,) = await sdk.runs.list(thread_id)

    with pytest.raises(ConflictError) as refused:
        await sdk.runs.delete(thread_id, waiting["run_id"])

    assert refused.value.code == "run_not_finished"
    assert (await sdk.threads.get(thread_id))["status"] == "interrupted"


async def test_another_subjects_run_is_not_theirs_to_delete(guarded: LiveServer) -> None:
    async with (
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {ALICE}"}, timeout=30) as alice,
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {BOB}"}, timeout=30) as bob,
    ):
        thread_id = (await alice.threads.create())["thread_id"]
        await alice.runs.wait(thread_id, "react_agent", input=LOOKUP)
        (run,) = await alice.runs.list(thread_id)
        with pytest.raises(NotFoundError) as foreign:
            await bob.runs.delete(thread_id, run["run_id"])
        kept = await alice.runs.get(thread_id, run["run_id"])

    assert foreign.value.code in ("run_not_found", "session_not_found")
    assert kept["run_id"] == run["run_id"]


async def test_a_run_of_another_thread_is_not_found_there(sdk: LangGraphClient, examples: LiveServer) -> None:
    thread_id = (await sdk.threads.create())["thread_id"]
    other_id = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(thread_id, "react_agent", input=LOOKUP)
    (run,) = await sdk.runs.list(thread_id)

    async with httpx.AsyncClient(base_url=examples.url) as client:
        answer = await client.delete(f"/threads/{other_id}/runs/{run['run_id']}")

        unthreaded = await client.delete(f"/runs/{run['run_id']}")

    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert unthreaded.status_code == 405, "the published DELETE /runs/{run_id} is not served"
    assert unthreaded.headers["content-type"].startswith("application/problem+json")
    assert (await sdk.runs.get(thread_id, run["run_id"]))["run_id"] == run["run_id"]


async def test_a_deleted_thread_takes_its_queued_runs_with_it(gated_sdk: LangGraphClient, tmp_path: Path) -> None:
    thread_id = (await gated_sdk.threads.create())["thread_id"]
    gate = tmp_path / "gate"
    running = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gate)}, stream_mode="custom")
    await held(gated_sdk, thread_id, running["run_id"])
    pending = await gated_sdk.runs.create(thread_id, "gated", input={"gate": str(gate)})
    queued = await statuses(gated_sdk, thread_id)

    await gated_sdk.threads.delete(thread_id)
    gate.touch()
    again = await gated_sdk.threads.create(thread_id=thread_id)

    assert queued == {running["run_id"]: "running", pending["run_id"]: "pending"}
    assert await gated_sdk.runs.list(again["thread_id"]) == [], "the id starts a new, empty thread"
    for run in (running, pending):
        with pytest.raises(NotFoundError):
            await gated_sdk.runs.get(thread_id, run["run_id"])
    assert (await gated_sdk.threads.get_state(thread_id))["checkpoint"] is None
