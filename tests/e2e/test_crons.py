"""Crons driven by langgraph-sdk's ``client.crons.*`` against real ``harness serve`` processes: one instance on the
embedded stores (make, search, count, change, delete; a cron's runs are the thread's ordinary runs; bad bodies are
problem+json; its runs POSTed to its webhook, to a receiver of the tests'), and two on the shared stores with a
``kill -9`` of one (each firing's run exactly once, the survivor firing on).

The graph is the tests' own (``tick``: it appends its input to a list) and the schedules have a sixth field of
seconds, with ``HARNESS_CRON_TICK_S`` short, so a test sees firings in seconds, not minutes.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections import Counter
from contextlib import AsyncExitStack
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

from tests.e2e.test_webhooks import Receiver
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

TICK_GRAPH = """
    import operator
    from typing import Annotated, TypedDict

    from langgraph.graph import StateGraph


    class State(TypedDict):
        n: int
        ticks: Annotated[list[int], operator.add]


    def tick(state: State) -> dict:
        return {"ticks": [state["n"]]}


    graph = StateGraph(State).add_node("tick", tick).add_edge("__start__", "tick").compile()
"""
EVERY_SECOND = "* * * * * *"
EVERY_2_S = "* * * * * */2"
"""Longer than a loaded machine stalls an instance's loop: a survivor late by a whole period would make a catch-up
firing of two (by design, ADR 47), which the count of firings cannot tell from a lost one."""
PATIENCE_S = 40
FIRINGS = re.compile(r'^harness_cron_firings_total\{outcome="(\w+)"\} ([0-9.]+)$', re.MULTILINE)


def tick_project(folder: Path) -> Path:
    return write_project(folder, {"tick.py": TICK_GRAPH, "langgraph.json": {"graphs": {"tick": "./tick.py:graph"}}})


def settings_env(folder: Path) -> dict[str, str]:
    return {
        "HARNESS_CONFIG": str(tick_project(folder / "project")),
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
        "HARNESS_CRON_TICK_S": "0.1",
    }


async def runs_of(sdk: LangGraphClient, thread_id: str, at_least: int) -> list[dict[str, Any]]:
    """The thread's runs once it has ``at_least`` that have ended; fail after ``PATIENCE_S``."""
    try:
        async with asyncio.timeout(PATIENCE_S):
            while True:
                found = [dict(run) for run in await sdk.runs.list(thread_id, limit=1000)]
                if sum(run["status"] == "success" for run in found) >= at_least:
                    return found
                await asyncio.sleep(0.2)
    except TimeoutError:
        raise AssertionError(f"thread {thread_id} has not {at_least} ended runs after {PATIENCE_S} s") from None


async def firings(client: httpx.AsyncClient, url: str) -> dict[str, float]:
    text = (await client.get(f"{url}/metrics")).text
    return {outcome: float(count) for outcome, count in FIRINGS.findall(text)}


def errors(process: HarnessProcess) -> list[str]:
    return [line for line in process.stderr().splitlines() if "ERROR" in line or "Traceback" in line]


async def test_crons_through_the_sdk_on_the_embedded_stores(tmp_path: Path) -> None:
    env = {**settings_env(tmp_path), "HARNESS_DATA_DIR": str(tmp_path / "data")}
    async with AsyncExitStack() as stack:
        process = HarnessProcess(env)
        stack.callback(process.close)
        await process.start()
        sdk = await stack.enter_async_context(get_client(url=process.url, timeout=30))
        client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        thread_id = (await sdk.threads.create())["thread_id"]

        on_thread: Any = await sdk.crons.create_for_thread(
            thread_id, "tick", schedule=EVERY_SECOND, input={"n": 1}, metadata={"team": "a"}
        )
        stateless: Any = await sdk.crons.create(
            "tick", schedule="0 9 * * 1-5", timezone="Europe/Paris", input={"n": 2}, on_run_completed="keep"
        )
        assert on_thread["thread_id"] == thread_id
        assert on_thread["next_run_date"] is not None
        assert on_thread["payload"] == {
            "assistant_id": "tick",
            "input": {"n": 1},
            "metadata": {"team": "a"},
            "multitask_strategy": "enqueue",
            "stream_mode": "values",
            "stream_subgraphs": False,
            "stream_resumable": False,
        }
        assert stateless["thread_id"] is None
        assert stateless["timezone"] == "Europe/Paris"
        assert stateless["next_run_date"].endswith(("T07:00:00+00:00", "T08:00:00+00:00")), "9:00 in Paris"
        assert await sdk.crons.count() == 2
        assert await sdk.crons.count(thread_id=thread_id) == 1
        assert await sdk.crons.count(metadata={"team": "a"}) == 1
        assert [c["cron_id"] for c in await sdk.crons.search(assistant_id="tick", thread_id=thread_id)] == [
            on_thread["cron_id"]
        ]
        assert len(await sdk.crons.search(limit=1)) == 1

        runs = await runs_of(sdk, thread_id, 3)  # the cron's runs are the thread's runs
        state: Any = await sdk.threads.get_state(thread_id)
        assert state["values"]["ticks"][:3] == [1, 1, 1]
        assert {run["metadata"]["cron_id"] for run in runs} == {on_thread["cron_id"]}
        assert len({run["metadata"]["cron_firing"] for run in runs}) == len(runs), "one run a firing"

        updated: Any = await sdk.crons.update(on_thread["cron_id"], enabled=False)
        assert updated["enabled"] is False
        assert updated["next_run_date"] is None
        assert await sdk.crons.search(enabled=False) == [updated]
        moved: Any = await sdk.crons.update(
            stateless["cron_id"], schedule="30 6 * * *", timezone="Asia/Tokyo", end_time=None
        )
        assert moved["schedule"] == "30 6 * * *"
        assert moved["next_run_date"].endswith("T21:30:00+00:00")

        # the bad bodies: each a problem+json the SDK raises for
        for bad in (
            {"schedule": "every day"},
            {"timezone": "Mars/Olympus"},
            {"end_time": "2030-01-01T00:00:00"},
            {"end_time": "9999-12-31T23:59:59-14:00"},  # year 10000 in UTC: refused, not saved then shown as a 500
        ):
            answer = await client.post(
                f"{process.url}/runs/crons", json={"assistant_id": "tick", "schedule": EVERY_SECOND, **bad}
            )
            assert answer.status_code == 422, bad
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert answer.json()["code"] == "cron_request_invalid"
        assert await sdk.crons.count() == 2, "no refused cron was saved"
        refused = await client.post(  # no HARNESS_WEBHOOK_ALLOWED_HOSTS: its every firing would be refused
            f"{process.url}/runs/crons",
            json={"assistant_id": "tick", "schedule": EVERY_SECOND, "webhook": "https://hooks.example.com/cron"},
        )
        assert (refused.status_code, refused.json()["code"]) == (422, "webhook_not_allowed")
        with pytest.raises(UnprocessableEntityError):
            await sdk.crons.create("nobody", schedule=EVERY_SECOND)
        with pytest.raises(UnprocessableEntityError):
            await sdk.crons.create_for_thread(thread_id, "tick", schedule=EVERY_SECOND, multitask_strategy="never")
        with pytest.raises(NotFoundError):
            await sdk.crons.create_for_thread("no-such-thread", "tick", schedule=EVERY_SECOND)
        with pytest.raises(UnprocessableEntityError):
            await sdk.crons.update(stateless["cron_id"], schedule="* * *")

        await sdk.crons.delete(stateless["cron_id"])
        with pytest.raises(NotFoundError):
            await sdk.crons.delete(stateless["cron_id"])
        with pytest.raises(NotFoundError):
            await sdk.crons.update(stateless["cron_id"], enabled=True)

        # a deleted thread takes its crons with it
        await sdk.threads.delete(thread_id)
        assert await sdk.crons.count() == 0
        counted = await firings(client, process.url)
        found = errors(process)

    assert counted.get("started", 0) + counted.get("queued", 0) >= 3
    assert found == []


async def test_a_cron_without_a_thread_runs_each_firing_on_a_new_thread_and_deletes_it(tmp_path: Path) -> None:
    env = {**settings_env(tmp_path), "HARNESS_DATA_DIR": str(tmp_path / "data")}
    async with AsyncExitStack() as stack:
        process = HarnessProcess(env)
        stack.callback(process.close)
        await process.start()
        sdk = await stack.enter_async_context(get_client(url=process.url, timeout=30))
        client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        kept: Any = await sdk.crons.create("tick", schedule=EVERY_SECOND, input={"n": 3}, on_run_completed="keep")
        deleted: Any = await sdk.crons.create("tick", schedule=EVERY_SECOND, input={"n": 4})
        assert deleted["on_run_completed"] == "delete"
        try:
            async with asyncio.timeout(PATIENCE_S):
                while len(threads := await sdk.threads.search(limit=100)) < 2:
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise AssertionError("no cron made two threads") from None
        await sdk.crons.delete(kept["cron_id"])
        await sdk.crons.delete(deleted["cron_id"])
        counted = await firings(client, process.url)
        try:  # the deleting cron's threads go once their runs have ended; the keeping cron's stay, with their values
            async with asyncio.timeout(PATIENCE_S):  # once the last firing's run (started as the crons went) has run
                while True:
                    left = await sdk.threads.search(limit=1000)
                    inputs = [(await sdk.threads.get_state(t["thread_id"]))["values"].get("n") for t in left]
                    if 4 not in inputs and None not in inputs:
                        break
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise AssertionError(f"threads of the deleting cron are left: {inputs}") from None
        found = errors(process)

    assert inputs, "the keeping cron's threads stay"
    assert set(inputs) == {3}, "each kept firing's thread has its run's values"
    assert len(threads) >= 2
    assert counted.get("started", 0) >= 2
    assert found == []


async def test_a_crons_runs_carry_its_webhook(tmp_path: Path) -> None:
    env = {
        **settings_env(tmp_path),
        "HARNESS_DATA_DIR": str(tmp_path / "data"),
        "HARNESS_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
        "HARNESS_WEBHOOK_TICK_S": "0.2",
    }
    async with AsyncExitStack() as stack:
        receiver = await stack.enter_async_context(Receiver())
        process = HarnessProcess(env)
        stack.callback(process.close)
        await process.start()
        sdk = await stack.enter_async_context(get_client(url=process.url, timeout=30))
        thread_id = (await sdk.threads.create())["thread_id"]
        cron: Any = await sdk.crons.create_for_thread(
            thread_id, "tick", schedule=EVERY_SECOND, input={"n": 5}, webhook=f"{receiver.url}/cron"
        )
        try:
            async with asyncio.timeout(PATIENCE_S):
                while not receiver.delivered("/cron"):
                    await asyncio.sleep(0.1)
        except TimeoutError:
            raise AssertionError("no run of the cron was delivered to its webhook") from None
        await sdk.crons.delete(cron["cron_id"])
        delivered = msgspec.json.decode(receiver.delivered("/cron")[0].body)

    assert delivered["thread_id"] == thread_id
    assert delivered["metadata"]["cron_id"] == cron["cron_id"]


async def test_two_instances_fire_each_firing_once_and_the_survivor_of_a_kill_9_fires_on(tmp_path: Path) -> None:
    with fresh_shared_stores() as shared:
        env = {**shared.env, **settings_env(tmp_path), "HARNESS_RUN_LEASE_S": "2"}
        async with AsyncExitStack() as stack:
            processes: list[HarnessProcess] = []
            for name in ("a", "b"):
                process = HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / name)})
                stack.callback(process.close)
                processes.append(await process.start())
            sdk = await stack.enter_async_context(get_client(url=processes[0].url, timeout=30))
            client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
            thread_id = (await sdk.threads.create())["thread_id"]
            cron: Any = await sdk.crons.create_for_thread(thread_id, "tick", schedule=EVERY_2_S, input={"n": 1})

            before_kill = len(await runs_of(sdk, thread_id, 4))
            counts = [await firings(client, process.url) for process in processes]
            firing = 0 if sum(counts[0].values()) else 1
            processes[firing].kill()  # one that fired dies, whatever it had claimed
            survivor = processes[1 - firing]
            on_survivor = await stack.enter_async_context(get_client(url=survivor.url, timeout=30))
            runs = await runs_of(on_survivor, thread_id, before_kill + 4)
            await on_survivor.crons.delete(cron["cron_id"])
            found = errors(survivor)
            with psycopg.connect(shared.database_url, autocommit=True) as db:
                left = db.execute("SELECT count(*) FROM harness_crons").fetchone()

    per_firing = Counter(run["metadata"]["cron_firing"] for run in runs)
    assert max(per_firing.values()) == 1, "each firing's run exactly once"
    fired = sorted(datetime.fromisoformat(firing) for firing in per_firing)
    steps = {(later - earlier).total_seconds() for earlier, later in itertools.pairwise(fired)}
    assert steps == {2.0}, f"a firing is missing (one the killed instance had claimed is taken again): {fired}"
    assert found == []
    assert left == (0,)
