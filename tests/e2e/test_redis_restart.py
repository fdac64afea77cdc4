"""A Redis restart with AOF on loses no event a client was sent: every event is acknowledged by Redis before it
is sent, and ``appendfsync always`` makes an acknowledged write durable.

The machine's Redis keeps nothing on disk, so the test runs a ``redis-server`` of its own (AOF on, fsync on
every write, in the test's directory), kills it with SIGKILL while a run streams, starts it again on the same
port and directory, and reads the run back from another instance.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import redis

from tests.e2e.conftest import free_port
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores
from tests.support.sse import collect, frames

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

SSE = {"Accept": "text/event-stream"}
PASSWORD = {"message": "How do I reset my password?"}

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs the redis-server binary")


class DurableRedis:
    """A ``redis-server`` with AOF on and ``appendfsync always``, killed and started again on demand."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._directory = directory
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--dir",
                str(self._directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client: Any = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    break
            except redis.ConnectionError:  # refused, or still loading its AOF
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()


@pytest.fixture
def durable_redis(tmp_path: Path) -> Iterator[DurableRedis]:
    server = DurableRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


async def test_the_events_a_client_was_sent_survive_a_kill_and_restart_of_redis(
    durable_redis: DurableRedis, tmp_path: Path
) -> None:
    with fresh_shared_stores() as shared:
        env = {
            **shared.env,
            "HARNESS_REDIS_URL": durable_redis.url,
            "HARNESS_STUB_TOKEN_DELAY_MS": "20",
            "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
            "HARNESS_HEARTBEAT_S": "0.5",
        }
        a = await HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / "a")}).start()
        try:
            async with httpx.AsyncClient(timeout=60) as client:
                async with client.stream("POST", f"{a.url}/chat", json=PASSWORD, headers=SSE) as response:
                    live = frames(response)
                    sent = [frame for _ in range(3) for frame in await collect(live, until="token_delta")]
                    durable_redis.kill()  # everything in ``sent`` was acknowledged before it was sent
                run_id = sent[0].data["run_id"]
                await asyncio.to_thread(durable_redis.start)
                b = await HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / "b")}).start()
                try:
                    async with asyncio.timeout(60):
                        async with client.stream("GET", f"{b.url}/runs/{run_id}/events") as response:
                            replayed = await collect(frames(response))
                finally:
                    b.close()
        finally:
            a.close()

    assert [frame.raw for frame in replayed[: len(sent)]] == [frame.raw for frame in sent]
    assert [frame.data["seq"] for frame in replayed] == list(range(1, len(replayed) + 1))
