"""The shared stores failing: at start one clear line, while serving 503s and a recovery without a restart."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from tests.e2e.conftest import free_port
from tests.support.harness_process import HarnessProcess, serve_once
from tests.support.shared_stores import fresh_shared_stores
from tests.support.tcp_proxy import TcpProxy

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path

    from tests.support.shared_stores import SharedStores

PASSWORD = {"message": "How do I reset my password?"}
RECOVERY_WITHIN_S = 20


@pytest.fixture
def shared() -> Iterator[SharedStores]:
    with fresh_shared_stores() as stores:
        yield stores


def through(url: str, port: int) -> str:
    """``url`` with its host and port replaced by a proxy on loopback."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=f"{credentials}@127.0.0.1:{port}" if credentials else f"127.0.0.1:{port}"))


@pytest.mark.parametrize("store", ["redis", "postgres"])
def test_a_store_that_is_down_at_start_is_one_clear_line(shared: SharedStores, tmp_path: Path, store: str) -> None:
    closed = free_port()
    env = shared.env
    if store == "redis":
        env["HARNESS_REDIS_URL"] = f"redis://127.0.0.1:{closed}/0"
        expected = f"harness: cannot connect to Redis at redis://127.0.0.1:{closed}/0: "
    else:
        env["HARNESS_DATABASE_URL"] = f"postgresql://postgres:hunter2@127.0.0.1:{closed}/test"
        expected = f"harness: cannot connect to PostgreSQL at postgresql://postgres:***@127.0.0.1:{closed}/test: "

    finished = serve_once({**env, "HARNESS_DATA_DIR": str(tmp_path)})

    assert finished.returncode == 2
    lines = finished.stderr.strip().splitlines()
    assert len(lines) == 1, finished.stderr
    assert lines[0].startswith(expected)
    assert "hunter2" not in finished.stderr
    assert "Traceback" not in finished.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HARNESS_REDIS_URL": "http://127.0.0.1:6379"}, "HARNESS_REDIS_URL is not a valid Redis URL"),
        ({"HARNESS_DATABASE_URL": "mysql://127.0.0.1/test"}, "HARNESS_DATABASE_URL must be a postgresql:// URL"),
        ({"HARNESS_DATABASE_URL": ""}, "HARNESS_REDIS_URL is set but HARNESS_DATABASE_URL is not"),
    ],
)
def test_a_malformed_store_url_is_a_configuration_error(
    shared: SharedStores, tmp_path: Path, env: dict[str, str], message: str
) -> None:
    finished = serve_once({**shared.env, **env, "HARNESS_DATA_DIR": str(tmp_path)})

    assert finished.returncode == 2
    assert finished.stderr.strip().splitlines() == [finished.stderr.strip()]
    assert message in finished.stderr


@pytest.fixture
async def proxied(shared: SharedStores, tmp_path: Path) -> AsyncIterator[tuple[HarnessProcess, dict[str, TcpProxy]]]:
    """An instance that reaches Redis and PostgreSQL through proxies the test can cut."""
    redis_target, database_target = urlsplit(shared.redis_url), urlsplit(shared.database_url)
    proxies = {
        "redis": await TcpProxy(redis_target.hostname or "", redis_target.port or 6379).open(),
        "postgres": await TcpProxy(database_target.hostname or "", database_target.port or 5432).open(),
    }
    server = HarnessProcess(
        {
            **shared.env,
            "HARNESS_DATA_DIR": str(tmp_path),
            "HARNESS_REDIS_URL": through(shared.redis_url, proxies["redis"].port),
            "HARNESS_DATABASE_URL": through(shared.database_url, proxies["postgres"].port),
            "HARNESS_RUN_LEASE_S": "2",
            "HARNESS_STUB_TOKEN_DELAY_MS": "0",
        }
    )
    await server.start()
    try:
        yield server, proxies
    finally:
        await asyncio.to_thread(server.close)
        for proxy in proxies.values():
            await proxy.cut()


async def healthy_again(client: httpx.AsyncClient) -> None:
    async with asyncio.timeout(RECOVERY_WITHIN_S):
        while (await client.get("/healthz")).status_code != 200:
            await asyncio.sleep(0.1)


@pytest.mark.parametrize("store", ["redis", "postgres"])
async def test_a_store_down_while_serving_is_a_503_and_the_service_recovers_by_itself(
    proxied: tuple[HarnessProcess, dict[str, TcpProxy]], store: str
) -> None:
    server, proxies = proxied
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        before = await client.post("/chat", json=PASSWORD)
        await proxies[store].cut()
        health = await client.get("/healthz")
        turn = await client.post("/chat", json=PASSWORD)
        run_read = await client.get(f"/runs/{before.json()['run_id']}")
        await proxies[store].open()
        await healthy_again(client)
        after = await client.post("/chat", json=PASSWORD)

    assert before.json()["status"] == "completed"
    for outage in (health, turn):
        assert outage.status_code == 503, outage.text
        assert outage.headers["content-type"].startswith("application/problem+json")
        assert "Traceback" not in outage.text
    problem: dict[str, Any] = turn.json()
    assert problem["code"] == "store_unavailable"
    assert problem["status"] == 503
    # a run's record lives in Redis (PostgreSQL keeps a copy): without Redis a read is a clean 503
    assert run_read.status_code == (503 if store == "redis" else 200)
    assert after.json()["status"] == "completed"
