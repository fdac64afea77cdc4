"""`harness serve` processes on the shared stores: an instance frozen past its lease (SIGSTOP) counts the run it
lost once it runs again, and the instance that ended the run counts it as ended by ``instance_lost``; Redis cut
while serving is counted as store errors of the event log, and the 503s by route."""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.e2e import test_store_faults
from tests.support.harness_process import HarnessProcess
from tests.support.metrics import scrape
from tests.support.shared_stores import fresh_shared_stores
from tests.support.sse import collect, frames

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from pathlib import Path

    from tests.support.tcp_proxy import TcpProxy

SSE = {"Accept": "text/event-stream"}
PASSWORD = {"message": "How do I reset my password?"}
LEASE_S = 2
WITHIN_S = LEASE_S + 30
shared, proxied = test_store_faults.shared, test_store_faults.proxied
"""The fixtures of an instance whose Redis and PostgreSQL are reached through proxies the test cuts."""


@pytest.fixture
async def instance(tmp_path: Path) -> AsyncIterator[Callable[..., HarnessProcess]]:
    started: list[HarnessProcess] = []
    with fresh_shared_stores() as stores:

        async def start(**env: str) -> HarnessProcess:
            process = HarnessProcess(
                {
                    **stores.env,
                    "HARNESS_DATA_DIR": str(tmp_path / f"instance-{len(started)}"),
                    "HARNESS_RUN_LEASE_S": str(LEASE_S),
                    "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
                    **env,
                }
            )
            started.append(process)
            return await process.start()

        yield start
        for process in started:
            if process.process is not None and process.process.poll() is None:
                process.process.send_signal(signal.SIGCONT)
            process.close()


async def test_a_frozen_instance_counts_the_lease_it_lost_and_the_other_the_run_it_ended(
    instance: Callable[..., HarnessProcess],
) -> None:
    a = await instance(HARNESS_STUB_TOKEN_DELAY_MS="500")
    b = await instance()
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
            run_id = (await collect(frames(response), until="node_started"))[0].data["run_id"]
            assert a.process is not None
            a.process.send_signal(signal.SIGSTOP)
        async with asyncio.timeout(WITHIN_S):
            while (ended := (await client.get(f"{b.url}/runs/{run_id}")).json())["status"] == "running":
                await asyncio.sleep(0.1)
        a.process.send_signal(signal.SIGCONT)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:
            async with asyncio.timeout(WITHIN_S):
                while (from_a := await scrape(on_a)).value("harness_leases_lost_total") == 0:
                    await asyncio.sleep(0.1)
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as on_b:
            from_b = await scrape(on_b)

    assert (ended["status"], ended["error"]["code"]) == ("failed", "instance_lost")
    assert from_a.value("harness_leases_lost_total") == 1
    assert from_a.value("harness_turns_total", outcome="failed") == 0, "the frozen instance wrote no ending"
    assert from_b.value("harness_leases_lost_total") == 0
    assert from_b.value("harness_run_errors_total", code="instance_lost") == 1
    assert from_b.value("harness_turns_total", outcome="failed") == 1
    assert from_b.value("harness_turn_duration_seconds_count", outcome="failed") == 0, "it did not start there"


async def test_redis_cut_while_serving_is_counted_as_store_errors_and_503s(
    proxied: tuple[HarnessProcess, dict[str, TcpProxy]],
) -> None:
    server, proxies = proxied
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        answered = (await client.post("/chat", json=PASSWORD)).json()
        before = await scrape(client)
        await proxies["redis"].cut()
        turn = await client.post("/chat", json=PASSWORD)
        read = await client.get(f"/runs/{answered['run_id']}")
        await proxies["redis"].open()
        await test_store_faults.healthy_again(client)
        after = await scrape(client)

    assert (turn.status_code, read.status_code) == (503, 503)
    assert before.total("harness_store_errors_total") == 0
    assert after.value("harness_store_errors_total", store="redis", operation="middleware") == 1, (
        "the turn's rate limit, counted in Redis, failed first"
    )
    assert after.value("harness_store_errors_total", store="redis", operation="load_run") >= 1, "the log's read"
    assert after.value("harness_http_requests_total", method="POST", route="/chat", status="503") == 1
    assert after.value("harness_http_requests_total", method="GET", route="/runs/{run_id}", status="503") == 1
