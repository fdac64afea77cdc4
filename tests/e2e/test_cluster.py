"""Two `harness serve` processes on the same Redis and PostgreSQL form one service.

Every test starts real instances (child processes, as operators run them) on fresh shared stores: any
instance answers any request, a run executes on exactly one of them, and losing one loses no event.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from contracts import TERMINAL_EVENT_TYPES
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores
from tests.support.sse import Frame, collect, frames
from tests.support.store_bytes import postgres_bytes, redis_bytes

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator
    from pathlib import Path

    from tests.support.shared_stores import SharedStores

SSE = {"Accept": "text/event-stream"}
PASSWORD = {"message": "How do I reset my password?"}
REFUND = {"message": "Please refund invoice INV-1001."}
LEASE_S = 2
INSTANCE_LOST_WITHIN_S = LEASE_S + 15
"""The contract's bound: a lost run ends within HARNESS_RUN_LEASE_S + 15 s of its instance's death."""


@pytest.fixture
def shared() -> Iterator[SharedStores]:
    with fresh_shared_stores() as stores:
        yield stores


@pytest.fixture
async def instance(shared: SharedStores, tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Start an instance on the shared stores; every one is stopped at the end of the test."""
    started: list[HarnessProcess] = []

    async def start(**env: str) -> HarnessProcess:
        process = HarnessProcess(
            {
                **shared.env,
                "HARNESS_DATA_DIR": str(tmp_path / f"instance-{len(started)}"),
                "HARNESS_RUN_LEASE_S": str(LEASE_S),
                "HARNESS_HEARTBEAT_S": "0.2",
                "HARNESS_STUB_TOKEN_DELAY_MS": "20",
                "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
                **env,
            }
        )
        started.append(process)
        return await process.start()

    yield start
    for process in started:
        process.close()


def seqs(received: list[Frame]) -> list[int]:
    return [frame.data["seq"] for frame in received]


async def settled(client: httpx.AsyncClient, run_url: str, *, within_s: float = 20) -> dict[str, Any]:
    """The run's snapshot once it is no longer running (polling, so nothing follows it)."""
    async with asyncio.timeout(within_s):
        while True:
            snapshot: dict[str, Any] = (await client.get(run_url)).json()
            if snapshot["status"] != "running":
                return snapshot
            await asyncio.sleep(0.05)


async def test_a_turn_started_on_one_instance_replays_byte_identically_from_the_other(
    instance: Callable[..., Any],
) -> None:
    a, b = await instance(), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            first = await collect(frames(response), until="token_delta")
        run_id = first[0].data["run_id"]
        async with client.stream(
            "GET", f"{b.url}/runs/{run_id}/events", headers={"Last-Event-ID": first[-1].id or ""}
        ) as response:
            rest = await collect(frames(response))
        replays = [(await client.get(f"{url}/runs/{run_id}/events")).content for url in (a.url, b.url)]
        snapshots = [(await client.get(f"{url}/runs/{run_id}")).json() for url in (a.url, b.url)]

    received = first + rest
    assert seqs(received) == list(range(1, len(received) + 1))
    assert received[-1].event == "turn_completed"
    assert replays[0] == replays[1]
    assert replays[0].endswith(received[-1].raw + b"\n\n")
    assert snapshots[0] == snapshots[1]
    assert snapshots[0]["status"] == "completed"
    assert snapshots[0]["last_seq"] == received[-1].data["seq"]


async def test_a_run_paused_on_one_instance_is_resumed_on_the_other_over_json(
    instance: Callable[..., Any],
) -> None:
    a, b = await instance(), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        paused = (await client.post(f"{a.url}/chat", json=REFUND)).json()
        seen_from_b = (await client.get(f"{b.url}/runs/{paused['run_id']}")).json()
        decision = {
            "run_id": paused["run_id"],
            "approval_id": paused["pending_approval"]["approval_id"],
            "decision": "approve",
        }
        resumed = await client.post(f"{b.url}/chat/resume", json=decision)
        twice = await client.post(f"{a.url}/chat/resume", json=decision)
        snapshots = [(await client.get(f"{url}/runs/{paused['run_id']}")).json() for url in (a.url, b.url)]

    assert paused["status"] == "paused"
    assert seen_from_b["status"] == "waiting"
    assert seen_from_b["pending_approval"] == paused["pending_approval"]
    assert resumed.status_code == 200
    assert resumed.json()["status"] == "completed"
    assert resumed.json()["answer"]["kind"] == "action_result"
    assert twice.status_code == 409
    assert snapshots[0] == snapshots[1]
    assert snapshots[0]["response"] == resumed.json()


async def test_a_run_paused_on_one_instance_is_resumed_on_the_other_over_sse(
    instance: Callable[..., Any],
) -> None:
    a, b = await instance(), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        async with client.stream("POST", f"{a.url}/chat", json=REFUND, headers=SSE) as response:
            before = await collect(frames(response), until="paused")
        approval = before[-1].data["data"]["approval"]
        decision = {"run_id": before[-1].data["run_id"], "approval_id": approval["approval_id"], "decision": "approve"}
        async with client.stream("POST", f"{b.url}/chat/resume", json=decision, headers=SSE) as response:
            after = await collect(frames(response))

    assert after[0].event == "graph_topology"
    assert seqs(before + after) == list(range(1, len(before) + len(after) + 1))
    assert after[-1].event == "turn_completed"
    assert after[-1].data["human_wait_ms"] >= 0
    assert after[-1].data["data"]["response"]["status"] == "completed"


async def test_a_run_executing_on_one_instance_is_cancelled_from_the_other(instance: Callable[..., Any]) -> None:
    a, b = await instance(HARNESS_STUB_TOKEN_DELAY_MS="200"), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            stream = frames(response)
            async for frame in stream:
                if frame.event == "token_delta":
                    break
            cancel = await client.post(f"{b.url}/runs/{frame.data['run_id']}/cancel")
            rest = [f async for f in stream if f.event]

    assert cancel.status_code == 202
    assert rest[-1].event == "error"
    assert rest[-1].data["status"] == "cancelled"
    assert rest[-1].data["data"]["code"] == "cancelled"


async def test_a_session_whose_run_waits_on_one_instance_is_erased_through_the_other(
    instance: Callable[..., Any], shared: SharedStores
) -> None:
    a, b = await instance(), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        earlier = (await client.post(f"{a.url}/chat", json=PASSWORD)).json()
        session = earlier["session_id"]
        paused = (await client.post(f"{a.url}/chat", json={**REFUND, "session_id": session})).json()
        async with client.stream("GET", f"{a.url}/runs/{paused['run_id']}/events") as response:
            stream = frames(response)
            await collect(stream, until="paused")
            deleted = await client.delete(f"{b.url}/sessions/{session}")
            ended = await collect(stream)
        reads = [
            (await client.get(f"{url}/runs/{run_id}{tail}")).status_code
            for url in (a.url, b.url)
            for run_id in (earlier["run_id"], paused["run_id"])
            for tail in ("", "/events")
        ]
        decision = {"run_id": paused["run_id"], "approval_id": paused["pending_approval"]["approval_id"]}
        resumed = await client.post(f"{a.url}/chat/resume", json={**decision, "decision": "approve"})

    assert deleted.status_code == 204
    assert [frame.event for frame in ended] == ["error"], "its follower on A saw it cancelled first"
    assert set(reads) == {404}
    assert resumed.status_code == 404
    for where, data in [*postgres_bytes(shared).items(), ("redis", redis_bytes(shared))]:
        assert session.encode() not in data, where


async def test_a_session_whose_run_executes_on_one_instance_is_erased_through_the_other(
    instance: Callable[..., Any],
) -> None:
    a, b = await instance(HARNESS_STUB_TOKEN_DELAY_MS="200"), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            stream = frames(response)
            await collect(stream, until="token_delta")
            deleted = await client.delete(f"{b.url}/sessions/{response.headers['session-id']}")
            rest = await collect(stream)
        gone = await client.get(f"{a.url}/runs/{response.headers['run-id']}")

    assert deleted.status_code == 204, "B waited for A to end the run, then erased it"
    assert rest[-1].data["data"]["code"] == "cancelled"
    assert gone.status_code == 404


async def test_a_session_with_a_run_on_one_instance_is_busy_on_the_other(instance: Callable[..., Any]) -> None:
    a, b = await instance(), await instance()
    async with httpx.AsyncClient(timeout=30) as client:
        paused = (await client.post(f"{a.url}/chat", json=REFUND)).json()
        busy = await client.post(f"{b.url}/chat", json={**PASSWORD, "session_id": paused["session_id"]})
        cancelled = await client.post(f"{b.url}/runs/{paused['run_id']}/cancel")
        free = await client.post(f"{b.url}/chat", json={**PASSWORD, "session_id": paused["session_id"]})

    assert busy.status_code == 409
    assert busy.json()["code"] == "session_busy"
    assert cancelled.status_code == 202
    assert cancelled.json()["status"] == "cancelled"
    assert free.json()["status"] == "completed"


async def test_a_follower_on_the_other_instance_keeps_a_run_alive_through_the_grace(
    instance: Callable[..., Any],
) -> None:
    slow = {"HARNESS_STUB_TOKEN_DELAY_MS": "60", "HARNESS_DISCONNECT_GRACE_S": "0.3"}
    a, b = await instance(**slow), await instance(**slow)
    async with httpx.AsyncClient(timeout=30) as client, contextlib.AsyncExitStack() as streams:
        started = await streams.enter_async_context(client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE))
        run_id = (await collect(frames(started), until="token_delta"))[0].data["run_id"]
        following = await streams.enter_async_context(client.stream("GET", f"{b.url}/runs/{run_id}/events"))
        await started.aclose()
        # the only stream left is on B, and A's grace period passes many times over while B follows
        followed = await collect(frames(following))

    assert followed[-1].event == "turn_completed"
    assert seqs(followed) == list(range(1, len(followed) + 1))


async def test_a_run_nobody_follows_anywhere_is_aborted_after_the_grace(instance: Callable[..., Any]) -> None:
    slow = {"HARNESS_STUB_TOKEN_DELAY_MS": "200", "HARNESS_DISCONNECT_GRACE_S": "0.3"}
    a, b = await instance(**slow), await instance(**slow)
    async with httpx.AsyncClient(timeout=30) as client:
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            run_id = (await collect(frames(response), until="graph_topology"))[0].data["run_id"]
        async with client.stream("GET", f"{b.url}/runs/{run_id}/events") as response:
            await collect(frames(response), until="token_delta")
        snapshot = await settled(client, f"{a.url}/runs/{run_id}")

    assert snapshot["status"] == "cancelled"
    assert snapshot["error"]["code"] == "client_disconnected"


async def test_kill_9_of_the_executing_instance_ends_its_run_with_instance_lost_everywhere(
    instance: Callable[..., Any],
) -> None:
    a, b = await instance(HARNESS_STUB_TOKEN_DELAY_MS="500"), await instance()
    async with httpx.AsyncClient(timeout=60) as client:
        paused = (await client.post(f"{a.url}/chat", json=REFUND)).json()
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            run_id = (await collect(frames(response), until="node_started"))[0].data["run_id"]
            async with client.stream("GET", f"{b.url}/runs/{run_id}/events") as follower:
                a.kill()
                async with asyncio.timeout(INSTANCE_LOST_WITHIN_S):
                    followed = await collect(frames(follower))
        c = await instance()
        from_c = (await client.get(f"{c.url}/runs/{run_id}")).json()
        still_paused = (await client.get(f"{b.url}/runs/{paused['run_id']}")).json()
        decision = {
            "run_id": paused["run_id"],
            "approval_id": paused["pending_approval"]["approval_id"],
            "decision": "reject",
        }
        rejected = (await client.post(f"{c.url}/chat/resume", json=decision)).json()

    assert followed[-1].event == "error"
    assert followed[-1].data["status"] == "failed"
    assert followed[-1].data["data"]["code"] == "instance_lost"
    assert followed[-1].data["data"]["retryable"] is True
    assert seqs(followed) == list(range(1, len(followed) + 1))
    assert sum(f.event in TERMINAL_EVENT_TYPES for f in followed) == 1
    assert from_c["status"] == "failed"
    assert from_c["error"]["code"] == "instance_lost"
    assert still_paused["status"] == "waiting"
    assert rejected["status"] == "rejected"


async def test_sigterm_ends_only_the_stopping_instances_runs(instance: Callable[..., Any]) -> None:
    slow = {"HARNESS_STUB_TOKEN_DELAY_MS": "100"}
    a, b = await instance(**slow), await instance(**slow)
    async with httpx.AsyncClient(timeout=60) as client:
        async with (
            client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as on_a,
            client.stream("POST", f"{b.url}/chat", json=PASSWORD, headers=SSE) as on_b,
        ):
            stream_a, stream_b = frames(on_a), frames(on_b)
            first_a = await collect(stream_a, until="token_delta")
            first_b = await collect(stream_b, until="token_delta")
            async with client.stream("GET", f"{b.url}/runs/{first_a[0].data['run_id']}/events") as a_seen_from_b:
                assert await asyncio.to_thread(a.terminate) in (0, -15)
                rest_a = await collect(stream_a)
                followed_a = await collect(frames(a_seen_from_b))
            rest_b = await collect(stream_b)
        restarted = await instance()
        b_run = (await client.get(f"{restarted.url}/runs/{first_b[0].data['run_id']}")).json()

    assert rest_a[-1].data["data"]["code"] == "server_shutdown"
    assert followed_a[-1].data["data"]["code"] == "server_shutdown"
    assert rest_b[-1].event == "turn_completed", "the other instance's run is not touched"
    assert b_run["status"] == "completed"


async def test_a_new_instance_does_not_end_runs_a_live_instance_executes(instance: Callable[..., Any]) -> None:
    a = await instance(HARNESS_STUB_TOKEN_DELAY_MS="150")
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            stream = frames(response)
            first = await collect(stream, until="token_delta")
            b = await instance()  # it sweeps for lost runs as it starts (and every third of the lease after)
            # B is up, so its start-up sweep is done; the run was running all along (a token every 150 ms)
            during = (await client.get(f"{b.url}/runs/{first[0].data['run_id']}")).json()
            rest = await collect(stream)

    assert during["status"] == "running", "B's sweep came while A's run was running"
    assert rest[-1].event == "turn_completed"
    assert seqs(first + rest) == list(range(1, len(first) + len(rest) + 1))
