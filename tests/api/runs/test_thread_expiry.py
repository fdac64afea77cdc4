"""The thread TTL (``checkpointer.ttl`` of ``langgraph.json``): a sweep removes each thread idle for longer than the
TTL whole, as an erasure removes a session; a thread used since, one waiting for a human and one never run but
created lately stay. On both store kinds, with a clock the test moves."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from litestar.testing import AsyncTestClient

from agent.graphs import ThreadTtl
from agent.turns import thread_config
from api.app import create_app
from api.runs.erasure import Forgotten
from api.runs.retention import cutoff
from api.runs.thread_expiry import ThreadExpiry
from tests.api.runs.test_purge import QUESTION, TravellingClock, chat, on_app
from tests.support.decisions import decision_for

if TYPE_CHECKING:
    from api.runs.registry import RunRegistry
    from api.settings import Settings

HOUR_S = 3_600


async def test_a_sweep_removes_the_threads_idle_for_longer_than_the_ttl_and_keeps_the_others(
    settings: Settings,
) -> None:
    clock = TravellingClock()
    async with AsyncTestClient(create_app(settings, clock=clock)) as client:
        runs: RunRegistry = client.app.state.runs
        idle = await chat(client, f"{QUESTION} idle")
        paused = await chat(client, "Please refund invoice INV-1001.")
        used_again = await chat(client, f"{QUESTION} used again")
        never_run = (await client.post("/threads", json={})).json()["thread_id"]
        clock.travel(2 * HOUR_S)
        again = await chat(client, QUESTION, used_again["session_id"])
        recent = (await client.post("/threads", json={})).json()["thread_id"]
        expiry = ThreadExpiry(runs.log, runs.eraser, ThreadTtl(default_ttl=60), clock=clock, cluster=runs.cluster)

        forgotten = await on_app(client, expiry.sweep_once)

        assert (forgotten.sessions, forgotten.runs, forgotten.interactions) == (2, 1, 1), forgotten
        assert forgotten.events > 5
        assert (await client.get(f"/runs/{idle['run_id']}")).status_code == 404
        assert (await client.get(f"/threads/{idle['session_id']}")).status_code == 404
        assert (await client.get(f"/threads/{never_run}")).status_code == 404
        state = await on_app(client, runs.agent.graph.aget_state, thread_config(idle["session_id"]))
        assert state.values == {}, "its checkpoints went with it"
        for kept in (used_again, again, paused):
            assert (await client.get(f"/runs/{kept['run_id']}")).status_code == 200
        assert (await client.get(f"/threads/{recent}")).status_code == 200
        resumed = await client.post("/chat/resume", json=decision_for(paused, "approve"))
        assert resumed.json()["status"] == "completed", "a thread waiting for a human is never idle"

        clock.travel(2 * HOUR_S)
        await on_app(client, _idle_in_the_log, runs, paused["session_id"], cutoff(clock.now_ns(), HOUR_S))
        expiry = ThreadExpiry(
            runs.log, runs.eraser, ThreadTtl(default_ttl=60, sweep_interval_minutes=0.001), clock=clock, cluster=None
        )
        later = await on_app(client, expiry.sweep_once)

        assert later.sessions == 3, "once idle in turn, the others go too"
        assert await on_app(client, expiry.sweep_once) == Forgotten()


async def _idle_in_the_log(runs: RunRegistry, session_id: str, before: str) -> None:
    """Wait until the log counts the session idle: the JSON answer of a resume comes as its run ends, and the end
    reaches the log's index of finished runs a moment later."""
    for _ in range(500):
        if session_id in await runs.log.idle_sessions(before, 100):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"session {session_id} is not idle in the log")
