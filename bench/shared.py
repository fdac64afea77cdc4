"""The shared stores of the benchmarks: a Redis server of the run's own, PostgreSQL, and what each costs.

The machine's Redis (127.0.0.1:6379) serves everybody's tests, so its command counts and CPU say little about
one benchmark: each shared-store benchmark starts a ``redis-server`` of its own (the machine's binary, nothing
kept on disk) on a free port, and reads that server's ``INFO`` (commands processed, CPU). Without a
``redis-server`` binary the machine's Redis is used, and its figures then include whatever else it serves.
PostgreSQL is the machine's, in a fresh schema (``tests.support.shared_stores``); the CPU of the benchmark's
own backends (found by ``application_name``) is read from ``/proc``.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg
import redis

from bench.servers import SharedStoreUrls, free_port
from bench.system import any_core, cpu_seconds

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ("SharedStores", "StoreCosts", "shared_stores")


@dataclass(frozen=True)
class StoreCosts:
    """What the stores did over a stretch: Redis commands and CPU, PostgreSQL backends' CPU."""

    seconds: float
    redis_commands: int
    redis_cpu_s: float
    postgres_cpu_s: float

    @property
    def redis_commands_per_s(self) -> float:
        return self.redis_commands / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class SharedStores:
    urls: SharedStoreUrls
    env: dict[str, str]
    """``harness serve``'s variables for these stores."""
    private_redis: bool
    application_name: str

    def _redis_figures(self) -> tuple[int, float]:
        client: Any = redis.Redis.from_url(self.urls.redis_url)
        try:
            stats, cpu = client.info("stats"), client.info("cpu")
        finally:
            client.close()
        return int(stats["total_commands_processed"]), float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])

    def _postgres_cpu_s(self) -> float:
        from tests.support.shared_stores import DATABASE_URL

        with psycopg.connect(DATABASE_URL, autocommit=True) as connection:
            pids = connection.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (self.application_name,)
            ).fetchall()
        total = 0.0
        for (pid,) in pids:
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += cpu_seconds(pid)
        return total

    @contextmanager
    def measured(self) -> Iterator[list[StoreCosts]]:
        """``with stores.measured() as costs:`` the costs of the block are ``costs[0]`` after it."""
        costs: list[StoreCosts] = []
        commands, redis_cpu = self._redis_figures()
        postgres_cpu = self._postgres_cpu_s()
        started = time.perf_counter()
        yield costs
        seconds = time.perf_counter() - started
        commands_after, redis_cpu_after = self._redis_figures()
        costs.append(
            StoreCosts(
                seconds=seconds,
                redis_commands=commands_after - commands - 2,  # the two INFO of the second reading
                redis_cpu_s=redis_cpu_after - redis_cpu,
                postgres_cpu_s=max(0.0, self._postgres_cpu_s() - postgres_cpu),
            )
        )


@contextmanager
def _redis_server() -> Iterator[str | None]:
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as data_dir:
        with any_core():
            process = subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                cwd=data_dir,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        url = f"redis://127.0.0.1:{port}/0"
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    redis.Redis.from_url(url).ping()
                    break
                except redis.ConnectionError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise
                    time.sleep(0.05)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)


@contextmanager
def shared_stores() -> Iterator[SharedStores]:
    """Fresh shared stores (a PostgreSQL schema, a Redis of its own or a key prefix), removed afterwards."""
    from tests.support.shared_stores import fresh_shared_stores

    application_name = f"bench-{uuid.uuid4().hex[:8]}"
    with _redis_server() as private_url, fresh_shared_stores() as stores:
        redis_url = private_url or stores.redis_url
        database_url = f"{stores.database_url}&application_name={application_name}"
        urls = SharedStoreUrls(redis_url, database_url, stores.redis_prefix)
        env = {
            "HARNESS_DATABASE_URL": database_url,
            "HARNESS_REDIS_URL": redis_url,
            "HARNESS_REDIS_PREFIX": stores.redis_prefix,
        }
        yield SharedStores(urls, env, private_redis=private_url is not None, application_name=application_name)
