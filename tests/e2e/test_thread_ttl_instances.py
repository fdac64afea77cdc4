"""The thread TTL (``checkpointer.ttl`` of ``langgraph.json``) swept by the background loop of real ``harness serve``
processes: on the embedded stores (one instance) and on the shared ones (two, one of them killed with ``kill -9``).

Each test writes a ``langgraph.json`` of its own serving the ReAct example with a TTL of seconds (``default_ttl``
and ``sweep_interval_minutes`` are minutes, fractions allowed). A thread run and left idle goes (``GET
/threads/{id}`` answers 404), one created and never run goes by its record, and one whose run waits at the
refund's interrupt stays, however long, until it is decided and left idle in turn. With two instances each thread
is removed once (the sweep logs how many it removed; the logs add up to the threads), no log carries an error, the
stores keep nothing of a removed thread, and the instance left after the sweeper's ``kill -9`` sweeps on.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from langgraph_sdk import get_client

from tests.e2e.agent_protocol.turns import EXAMPLES, REFUND
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores
from tests.support.store_bytes import sqlite_bytes, stored_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

LOOKUP = {"messages": [{"role": "user", "content": "Where is my order A-1002?"}]}
APPROVE: Any = {"resume": {"decision": "approve"}}
REFUNDED = "Refunded 42.00 EUR for order A-1001."
TTL = {"strategy": "delete", "default_ttl": 0.3, "sweep_interval_minutes": 0.02}
"""Idle for 18 s, looked for every 1.2 s: longer than a loaded machine takes between making a thread and running it,
far shorter than the test."""
PATIENCE_S = 90
"""The most a test waits for a sweep to show (it looks every 0.2 s; a thread goes within the TTL and a look)."""
REMOVED = re.compile(r"thread TTL removed (\d+) threads")


@pytest.fixture(autouse=True)
def fake_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The instances run the example with its scripted fake chat model."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)


def ttl_project(folder: Path) -> Path:
    """A ``langgraph.json`` serving the ReAct example with the tiny TTL."""
    return write_project(
        folder,
        {
            "langgraph.json": {
                "dependencies": [str(EXAMPLES / "shared")],
                "graphs": {"react_agent": f"{EXAMPLES / 'react_agent' / 'react_agent.py'}:graph"},
                "checkpointer": {"ttl": TTL},
            }
        },
    )


async def run_idle(sdk: LangGraphClient) -> str:
    """A thread whose one run has ended: idle from now on."""
    thread_id: str = (await sdk.threads.create())["thread_id"]
    answer = await sdk.runs.wait(thread_id, "react_agent", input=LOOKUP)
    assert "A-1002" in str(answer)
    return thread_id


async def run_paused(sdk: LangGraphClient) -> str:
    """A thread whose run waits at the refund's interrupt."""
    thread_id: str = (await sdk.threads.create())["thread_id"]
    await sdk.runs.wait(thread_id, "react_agent", input=REFUND)
    (run,) = await sdk.runs.list(thread_id)
    assert run["status"] == "interrupted"
    return thread_id


async def gone(client: httpx.AsyncClient, urls: list[str], thread_ids: list[str]) -> None:
    """Return once every thread answers 404 on every instance; fail after ``PATIENCE_S``."""
    for thread_id in thread_ids:
        for url in urls:
            try:
                async with asyncio.timeout(PATIENCE_S):
                    while (await client.get(f"{url}/threads/{thread_id}")).status_code != 404:
                        await asyncio.sleep(0.2)
            except TimeoutError:
                raise AssertionError(f"thread {thread_id} is still there on {url} after {PATIENCE_S} s") from None


def removed(process: HarnessProcess) -> int:
    """How many threads the instance's sweeps logged as removed."""
    return sum(int(count) for count in REMOVED.findall(process.stderr()))


async def logged(processes: list[HarnessProcess], total: int) -> list[int]:
    """Each instance's removals once they add up to ``total`` (the log line follows the removal closely)."""
    try:
        async with asyncio.timeout(PATIENCE_S):
            while sum(counts := [removed(process) for process in processes]) < total:
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"the logs count {counts} threads removed, not {total}") from None
    return counts


def errors(process: HarnessProcess) -> list[str]:
    return [line for line in process.stderr().splitlines() if "ERROR" in line or "Traceback" in line]


async def test_the_one_embedded_instance_sweeps_idle_threads_and_keeps_one_waiting_at_an_interrupt(
    tmp_path: Path,
) -> None:
    env = {
        "HARNESS_CONFIG": str(ttl_project(tmp_path / "project")),
        "HARNESS_DATA_DIR": str(tmp_path / "data"),
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
    }
    async with AsyncExitStack() as stack:
        process = HarnessProcess(env)
        stack.callback(process.close)
        await process.start()
        sdk = await stack.enter_async_context(get_client(url=process.url, timeout=60))
        client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        paused = await run_paused(sdk)  # made first: only its waiting run can keep it
        idle = await run_idle(sdk)
        never_run = (await sdk.threads.create())["thread_id"]

        await gone(client, [process.url], [idle, never_run])
        kept = await client.get(f"{process.url}/threads/{paused}")
        assert kept.status_code == 200, "a thread waiting for a human is never idle"
        runs_kept = await sdk.runs.list(paused)
        resumed: Any = await sdk.runs.wait(paused, "react_agent", command=APPROVE)
        await gone(client, [process.url], [paused])
        counts = await logged([process], 3)
        found = errors(process)
        stored = sqlite_bytes(tmp_path / "data")

    assert [run["status"] for run in runs_kept] == ["interrupted"]
    assert resumed["messages"][-1]["content"] == REFUNDED, "decided, then idle in turn: it went too"
    assert counts == [3], "each thread removed once"
    assert found == []
    for thread_id in (idle, never_run, paused):
        for where, data in stored.items():
            assert thread_id.encode() not in data, where


async def test_two_instances_remove_each_idle_thread_once_and_the_survivor_of_a_kill_9_sweeps_on(
    tmp_path: Path,
) -> None:
    project = ttl_project(tmp_path / "project")
    with fresh_shared_stores() as shared:
        env = {**shared.env, "HARNESS_CONFIG": str(project), "HARNESS_RATE_LIMIT_PER_MINUTE": "0"}
        async with AsyncExitStack() as stack:
            processes, sdks = [], []
            for name in ("a", "b"):
                process = HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / name)})
                stack.callback(process.close)
                processes.append(await process.start())
                sdks.append(await stack.enter_async_context(get_client(url=process.url, timeout=60)))
            client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
            urls = [process.url for process in processes]
            paused = await run_paused(sdks[0])
            before_kill = [await run_idle(sdk) for sdk in (*sdks, *sdks)]

            await gone(client, urls, before_kill)
            swept_before_kill = await logged(processes, len(before_kill))
            sweeper = 0 if swept_before_kill[0] else 1  # the one that removed threads dies
            processes[sweeper].kill()
            survivor, on_survivor = processes[1 - sweeper], sdks[1 - sweeper]
            after_kill = [await run_idle(on_survivor) for _ in range(3)]
            await gone(client, [survivor.url], after_kill)
            kept = await client.get(f"{survivor.url}/threads/{paused}")
            assert kept.status_code == 200, "a thread waiting for a human is never idle"
            resumed: Any = await on_survivor.runs.wait(paused, "react_agent", command=APPROVE)
            await gone(client, [survivor.url], [paused])
            swept = await logged(processes, len(before_kill) + len(after_kill) + 1)
            found = [errors(process) for process in processes]
            stored = stored_bytes(tmp_path / "a", shared) | sqlite_bytes(tmp_path / "b")

    assert sum(swept_before_kill) == len(before_kill), "each idle thread removed once"
    assert resumed["messages"][-1]["content"] == REFUNDED
    assert swept[sweeper] == swept_before_kill[sweeper], "the killed instance swept no more"
    assert swept[1 - sweeper] == swept_before_kill[1 - sweeper] + len(after_kill) + 1
    assert found == [[], []]
    for thread_id in (*before_kill, *after_kill, paused):
        for where, data in stored.items():
            assert thread_id.encode() not in data, where
