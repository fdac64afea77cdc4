"""A real Prometheus (Debian's, `make prometheus`) scrapes two instances of the service on the shared stores,
with the metrics token, and a PromQL query over its HTTP API sums a counter across both as the turns say.

It runs from its own configuration in a temporary directory (no systemd service), with the alert rules of
docs/prometheus/alerts.yml loaded: Prometheus itself accepts them.
"""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest
import yaml

from tests.e2e.conftest import free_port
from tests.e2e.test_metrics import METRICS_TOKEN, PASSWORD, chat
from tests.support.processes import stop

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

PROMETHEUS = shutil.which("prometheus")
ALERTS = Path(__file__).resolve().parents[2] / "docs" / "prometheus" / "alerts.yml"
PATIENCE_S = 60
pytestmark = [
    pytest.mark.skipif(PROMETHEUS is None, reason="Debian's prometheus is not installed (`make prometheus`, as root)"),
    pytest.mark.parametrize("stores", ["shared"], indirect=True),
]


class Prometheus:
    def __init__(self, url: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.url = url
        self.process = process
        self.log = log

    async def query(self, client: httpx.AsyncClient, promql: str) -> list[dict[str, Any]]:
        response = await client.get(f"{self.url}/api/v1/query", params={"query": promql})
        body = response.json()
        assert body["status"] == "success", body
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    async def until(self, client: httpx.AsyncClient, promql: str, expected: float) -> float:
        """The query's single value once it is ``expected`` (it moves as scrapes come in); the last one else."""
        seen = None
        for _ in range(PATIENCE_S * 4):
            result = await self.query(client, promql)
            seen = float(result[0]["value"][1]) if len(result) == 1 else None
            if seen == expected:
                return seen
            await asyncio.sleep(0.25)
        raise AssertionError(
            f"{promql} stayed {seen}, not {expected}; prometheus said:\n{self.log.read_text()[-2000:]}"
        )


@pytest.fixture
async def prometheus(tmp_path: Path) -> AsyncIterator[Callable[[list[str]], Any]]:
    started: list[subprocess.Popen[bytes]] = []

    async def start(targets: list[str]) -> Prometheus:
        config = tmp_path / "prometheus.yml"
        config.write_text(
            yaml.safe_dump(
                {
                    "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
                    "rule_files": [str(ALERTS)],
                    "scrape_configs": [
                        {
                            "job_name": "agent-harness",
                            "authorization": {"credentials": METRICS_TOKEN},
                            "static_configs": [{"targets": targets}],
                        }
                    ],
                }
            )
        )
        port = free_port()
        log = tmp_path / "prometheus.log"
        assert PROMETHEUS is not None
        process = subprocess.Popen(
            [
                PROMETHEUS,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        started.append(process)
        server = Prometheus(f"http://127.0.0.1:{port}", process, log)
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(PATIENCE_S * 10):
                try:
                    if (await client.get(f"{server.url}/-/ready")).status_code == 200:
                        return server
                except httpx.TransportError:
                    pass
                assert process.poll() is None, log.read_text()
                await asyncio.sleep(0.1)
        raise AssertionError(f"prometheus did not become ready:\n{log.read_text()}")

    yield start
    for process in started:
        stop(process, signal.SIGTERM, within_s=10)


async def test_a_real_prometheus_sums_the_turns_of_two_instances(
    serve: Callable[..., LiveServer], settings: Settings, prometheus: Callable[[list[str]], Any], tmp_path: Path
) -> None:
    guarded = msgspec.structs.replace(settings, metrics_token=METRICS_TOKEN)
    first = serve(guarded)
    second = serve(
        msgspec.structs.replace(guarded, agent=msgspec.structs.replace(guarded.agent, data_dir=tmp_path / "second"))
    )
    server: Prometheus = await prometheus([f"127.0.0.1:{first.port}", f"127.0.0.1:{second.port}"])
    async with httpx.AsyncClient(timeout=30) as client:
        for instance, turns in ((first, 2), (second, 1)):
            async with httpx.AsyncClient(base_url=instance.url, timeout=30) as service:
                for _ in range(turns):
                    assert (await chat(service, PASSWORD))["status"] == "completed"
        up = await server.until(client, 'sum(up{job="agent-harness"})', 2)
        completed = await server.until(client, 'sum(harness_turns_total{outcome="completed"})', 3)
        by_instance = await server.query(client, 'harness_turns_total{outcome="completed"}')
        rules = (await client.get(f"{server.url}/api/v1/rules")).json()

    assert up == 2, "both instances are scraped with the metrics token"
    assert completed == 3
    assert sorted(float(series["value"][1]) for series in by_instance) == [1, 2]
    loaded = {rule["name"] for group in rules["data"]["groups"] for rule in group["rules"]}
    assert {
        "HarnessLeasesLost",
        "HarnessStoreErrors",
        "HarnessFirstTokenSlow",
        "HarnessApprovalWaitingOverAnHour",
    } <= loaded
