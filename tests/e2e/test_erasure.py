"""Erasure and retention over real HTTP (uvicorn on loopback), on both store kinds: a session erased while
its run waits for a human or is still streaming ends that run for its followers first; the background
purge removes what finished, and never a run that runs or waits, however old."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from tests.support.decisions import decision_for
from tests.support.sse import collect, frames

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

SSE = {"Accept": "text/event-stream"}
REFUND = {"message": "Please refund invoice INV-1001."}
QUESTION = {"message": "How do I reset my password?"}
PATIENCE_S = 30
"""The most a test waits for a background step to show (it looks every 50 ms; a pass takes far less)."""


async def eventually_gone(client: httpx.AsyncClient, run_id: str) -> bool:
    """Whether the run is gone (404) within ``PATIENCE_S``: the purge works in the background."""
    async with asyncio.timeout(PATIENCE_S):
        while (await client.get(f"/runs/{run_id}")).status_code != 404:
            await asyncio.sleep(0.05)
    return True


async def test_erasing_a_session_ends_its_waiting_run_for_its_followers_first(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    server = serve(settings)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        paused = (await client.post("/chat", json=REFUND)).json()
        async with client.stream("GET", f"/runs/{paused['run_id']}/events") as response:
            stream = frames(response)
            assert (await collect(stream, until="paused"))[-1].event == "paused"
            deleted = await client.delete(f"/sessions/{paused['session_id']}")
            ended = await collect(stream, until="error")

        assert deleted.status_code == 204
        assert [frame.event for frame in ended] == ["error"]
        assert ended[0].data["data"]["code"] == "cancelled"
        assert (await client.get(f"/runs/{paused['run_id']}")).status_code == 404
        assert (await client.post("/chat/resume", json=decision_for(paused, "approve"))).status_code == 404


async def test_erasing_a_session_cancels_its_running_run_first(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    slow = msgspec.structs.replace(settings.agent.stub, token_delay_ms=200)
    server = serve(msgspec.structs.replace(settings, agent=msgspec.structs.replace(settings.agent, stub=slow)))
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        async with client.stream("POST", "/chat", json=QUESTION, headers=SSE) as response:
            stream = frames(response)
            started = await collect(stream, until="token_delta")
            run_id, session_id = response.headers["run-id"], response.headers["session-id"]
            deleted = await client.delete(f"/sessions/{session_id}")
            ended = await collect(stream, until="error")

        assert started[-1].event == "token_delta"
        assert deleted.status_code == 204
        assert ended[-1].data["data"]["code"] == "cancelled"
        assert not any(frame.event == "turn_completed" for frame in ended)
        assert (await client.get(f"/runs/{run_id}")).status_code == 404


async def test_retention_purges_in_the_background_and_never_a_waiting_run(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    retention = msgspec.structs.replace(settings, retention_days=1e-6, purge_interval_s=0.05, purge_batch=1)
    server = serve(retention)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        paused: dict[str, Any] = (await client.post("/chat", json=REFUND)).json()
        answered = (await client.post("/chat", json=QUESTION)).json()

        assert await eventually_gone(client, answered["run_id"]), "a finished run goes once it is old enough"
        assert (await client.get(f"/runs/{paused['run_id']}")).json()["status"] == "waiting"
        resumed = (await client.post("/chat/resume", json=decision_for(paused, "approve"))).json()
        assert resumed["status"] == "completed"
        assert await eventually_gone(client, paused["run_id"]), "once decided and finished, it goes too"
        again = await client.post("/chat", json={**QUESTION, "session_id": answered["session_id"]})
        assert again.status_code == 200, "a purged session's id starts afresh"


async def test_retention_never_purges_a_running_run(serve: Callable[..., LiveServer], settings: Settings) -> None:
    slow = msgspec.structs.replace(settings.agent.stub, token_delay_ms=100)
    agent = msgspec.structs.replace(settings.agent, stub=slow)
    server = serve(msgspec.structs.replace(settings, agent=agent, retention_days=1e-6, purge_interval_s=0.05))
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        events: list[str] = []
        snapshots: list[int] = []
        async with client.stream("POST", "/chat", json=QUESTION, headers=SSE) as response:
            run_id = response.headers["run-id"]
            async for frame in frames(response):
                if frame.event:
                    events.append(frame.event)
                if frame.event == "token_delta":  # each one 100 ms, two purge passes, after the last
                    snapshots.append((await client.get(f"/runs/{run_id}")).status_code)

        assert len(snapshots) > 5, "the turn ran through many purge passes"
        assert set(snapshots) == {200}, "while it ran, it was never purged"
        assert events[-1] == "turn_completed"
        assert "error" not in events
        assert await eventually_gone(client, run_id), "once finished, it is old enough to go"
