"""Queued runs outlive the instance that queued them: ``harness serve`` processes killed with ``kill -9`` and
started again, on the shared stores (two instances) and on the embedded ones (one, restarted).

A thread's runs start one at a time, in the order they were asked for, on whichever instance finds the thread free
first; a run cancelled while queued never starts. A run rolled back from the other instance leaves the thread as it
was before it, on both.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from langgraph_sdk import get_client

from tests.e2e.agent_protocol.test_double_texting import LOOKUP, dangling_tool_calls, held, statuses
from tests.e2e.agent_protocol.turns import EXAMPLES, GATED_GRAPH, REFUND
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

LEASE_S = "2"


def one_running(found: dict[str, str]) -> bool:
    return list(found.values()).count("running") <= 1


async def queue_four(on_a: LangGraphClient, on_b: LangGraphClient, gates: list[Path]) -> tuple[str, list[str]]:
    """A thread whose first run holds (executing on A's side) and three more runs queued behind it from both sides;
    the thread's id and the four runs' ids."""
    thread_id = (await on_a.threads.create())["thread_id"]
    first = await on_a.runs.create(thread_id, "gated", input={"gate": str(gates[0])}, stream_mode="custom")
    await held(on_a, thread_id, first["run_id"])
    queued = [
        await client.runs.create(thread_id, "gated", input={"gate": str(gate)}, stream_mode="custom", **strategy)  # type: ignore[arg-type]
        for client, gate, strategy in (
            (on_b, gates[1], {"multitask_strategy": "enqueue"}),
            (on_a, gates[2], {}),
            (on_b, gates[3], {}),
        )
    ]
    return thread_id, [first["run_id"], *(run["run_id"] for run in queued)]


async def test_queued_runs_outlive_a_kill_9_and_start_in_order_on_the_other_instance(tmp_path: Path) -> None:
    project = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    gates = [tmp_path / f"gate-{n}" for n in range(4)]
    with fresh_shared_stores() as shared:
        env = {**shared.env, "HARNESS_CONFIG": str(project), "HARNESS_RATE_LIMIT_PER_MINUTE": "0"}
        a, b = (
            HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / name), "HARNESS_RUN_LEASE_S": LEASE_S})
            for name in ("a", "b")
        )
        async with AsyncExitStack() as stack:
            for process in (a, b):
                stack.callback(process.close)
                await process.start()
            on_a = await stack.enter_async_context(get_client(url=a.url, timeout=60))
            on_b = await stack.enter_async_context(get_client(url=b.url, timeout=60))
            thread_id, (first, second, third, fourth) = await queue_four(on_a, on_b, gates)
            queued = await statuses(on_b, thread_id)
            cancelled = await on_a.runs.cancel(thread_id, third, wait=True)

            a.kill()  # the first run's instance dies without a word; B ends the run, then starts the next
            await held(on_b, thread_id, second)
            after_kill = await statuses(on_b, thread_id)
            lost = await on_b.runs.join(thread_id, first)
            restarted = HarnessProcess(
                {**env, "HARNESS_DATA_DIR": str(tmp_path / "a2"), "HARNESS_RUN_LEASE_S": LEASE_S}
            )
            stack.callback(restarted.close)
            await restarted.start()
            on_a2 = await stack.enter_async_context(get_client(url=restarted.url, timeout=60))
            on_restarted = await statuses(on_a2, thread_id)
            gates[1].touch()
            await held(on_a2, thread_id, fourth)
            while_fourth = await statuses(on_a2, thread_id)
            gates[3].touch()
            ended = await on_a2.runs.join(thread_id, fourth)
            final = await statuses(on_b, thread_id)

    assert queued == {first: "running", second: "pending", third: "pending", fourth: "pending"}
    assert cancelled["__error__"]["error"] == "cancelled"  # type: ignore[call-overload]
    assert lost["__error__"]["error"] == "instance_lost"  # type: ignore[call-overload]
    assert after_kill == {first: "error", second: "running", third: "interrupted", fourth: "pending"}
    assert on_restarted == after_kill, "the queue is the stores', not an instance's"
    assert while_fourth == {first: "error", second: "success", third: "interrupted", fourth: "running"}
    assert all(map(one_running, (queued, after_kill, on_restarted, while_fourth, final)))
    assert ended["steps"] == ["first", "first", "hold", "last", "first", "hold", "last"]  # type: ignore[call-overload]
    assert final == {first: "error", second: "success", third: "interrupted", fourth: "success"}


async def test_queued_runs_outlive_a_kill_9_of_the_one_embedded_instance(tmp_path: Path) -> None:
    project = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    gates = [tmp_path / f"gate-{n}" for n in range(4)]
    env = {
        "HARNESS_CONFIG": str(project),
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
        "HARNESS_DATA_DIR": str(tmp_path / "data"),
    }
    async with AsyncExitStack() as stack:
        before = HarnessProcess(env)
        stack.callback(before.close)
        await before.start()
        on_before = await stack.enter_async_context(get_client(url=before.url, timeout=60))
        thread_id, (first, second, third, fourth) = await queue_four(on_before, on_before, gates)
        await on_before.runs.cancel(thread_id, third)

        before.kill()
        after = HarnessProcess(env)
        stack.callback(after.close)
        await after.start()
        on_after = await stack.enter_async_context(get_client(url=after.url, timeout=60))
        await held(on_after, thread_id, second)
        restarted = await statuses(on_after, thread_id)
        lost = await on_after.runs.join(thread_id, first)
        gates[1].touch()
        gates[3].touch()
        ended = await on_after.runs.join(thread_id, fourth)
        final = await statuses(on_after, thread_id)

    assert restarted == {first: "error", second: "running", third: "interrupted", fourth: "pending"}
    assert lost["__error__"]["error"] == "server_restarted"  # type: ignore[call-overload]
    assert ended["steps"] == ["first", "first", "hold", "last", "first", "hold", "last"]  # type: ignore[call-overload]
    assert final == {first: "error", second: "success", third: "interrupted", fourth: "success"}


async def test_a_run_paused_on_one_instance_is_rolled_back_from_the_other(tmp_path: Path) -> None:
    with fresh_shared_stores() as shared:
        env = {**shared.env, "HARNESS_CONFIG": str(EXAMPLES / "langgraph.json"), "HARNESS_RATE_LIMIT_PER_MINUTE": "0"}
        async with AsyncExitStack() as stack:
            clients = []
            for name in ("a", "b"):
                process = HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / name)})
                stack.callback(process.close)
                await process.start()
                clients.append(await stack.enter_async_context(get_client(url=process.url, timeout=60)))
            on_a, on_b = clients
            thread_id = (await on_a.threads.create())["thread_id"]
            await on_a.runs.wait(thread_id, "react_agent", input=LOOKUP)
            before = await on_b.threads.get_state(thread_id)
            history_before = await on_b.threads.get_history(thread_id, limit=100)
            await on_a.runs.wait(thread_id, "react_agent", input=REFUND)  # waits at the refund's approval
            dangling = dangling_tool_calls((await on_b.threads.get_state(thread_id))["values"]["messages"])

            answer = await on_b.runs.wait(thread_id, "react_agent", input=LOOKUP, multitask_strategy="rollback")
            history = await on_a.threads.get_history(thread_id, limit=100)
            runs = await on_a.runs.list(thread_id)

    assert len(dangling) == 1
    assert dangling_tool_calls(answer["messages"]) == []  # type: ignore[call-overload]
    assert history[-len(history_before) :] == history_before
    assert history[len(history) - len(history_before)] == history_before[0]
    assert before["values"]["messages"] == answer["messages"][: len(before["values"]["messages"])]  # type: ignore[call-overload]
    assert [run["status"] for run in runs] == ["success", "success"], "the rolled-back run is gone"
