"""An MCP call's ``notifications/cancelled`` that reaches another instance than the one running the call's run
cancels the run: two ``harness serve`` instances (child processes) on fresh shared stores, the official ``mcp``
client calling on one while its transport sends the cancellation to the other."""

from __future__ import annotations

from contextlib import AsyncExitStack
from functools import partial
from typing import TYPE_CHECKING

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.agent_protocol.turns import GATED_GRAPH
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from pathlib import Path


class _CancelsElsewhere(httpx2.AsyncBaseTransport):
    """Sends every message to the instance the client was made for, but a ``notifications/cancelled`` to
    ``elsewhere``: as a load balancer may."""

    def __init__(self, elsewhere: str) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._elsewhere = httpx2.URL(elsewhere)
        self.rerouted = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        if b'"notifications/cancelled"' in body:
            self.rerouted += 1
            url = request.url.copy_with(host=self._elsewhere.host, port=self._elsewhere.port)
            headers = [(name, value) for name, value in request.headers.raw if name.lower() != b"host"]
            request = httpx2.Request(request.method, url, headers=headers, content=body)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _status(http: httpx.AsyncClient, url: str, run_id: str) -> dict[str, object]:
    body: dict[str, object] = (await http.get(f"{url}/runs/{run_id}")).json()
    return body


async def _cancellations(http: httpx.AsyncClient, url: str) -> int:
    wanted = 'harness_agent_calls_total{method="notifications/cancelled",outcome="ok",protocol="mcp"}'
    lines = (await http.get(f"{url}/metrics")).text.splitlines()
    return sum(int(float(line.rpartition(" ")[2])) for line in lines if line.startswith(wanted))


async def test_a_cancellation_sent_to_the_other_instance_ends_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    config = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    holding = anyio.Event()

    async def report(progress: float, total: float | None, message: str | None) -> None:
        if message and "holding" in message:
            holding.set()

    with fresh_shared_stores() as shared:
        async with AsyncExitStack() as stack:
            a, b = [
                HarnessProcess(
                    {
                        **shared.env,
                        "HARNESS_CONFIG": str(config),
                        "HARNESS_DATA_DIR": str(tmp_path / f"instance-{name}"),
                        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
                        # the call's stream to A is dropped: only the cancellation may end the run this soon
                        "HARNESS_DISCONNECT_GRACE_S": "300",
                    }
                )
                for name in ("a", "b")
            ]
            for process in (a, b):
                stack.callback(process.close)
                await process.start()
            transport = _CancelsElsewhere(b.url)
            http2 = httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(30, read=60))
            async with Client(streamable_http_client(f"{a.url}/mcp", http_client=http2)) as client:
                async with anyio.create_task_group() as group:
                    call = partial(
                        client.call_tool, "gated", {"gate": str(tmp_path / "never")}, progress_callback=report
                    )
                    group.start_soon(call)
                    with anyio.fail_after(20):
                        await holding.wait()
                    group.cancel_scope.cancel()
            await http2.aclose()

            http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
            threads = (await http.post(f"{a.url}/threads/search", json={})).json()
            (thread,) = [thread for thread in threads if thread["thread_id"].startswith("mcp-")]
            (run,) = (await http.get(f"{a.url}/threads/{thread['thread_id']}/runs")).json()
            with anyio.fail_after(20):
                while (ran := await _status(http, a.url, run["run_id"]))["status"] == "running":
                    await anyio.sleep(0.05)

            assert transport.rerouted == 1
            cancelled_on = [await _cancellations(http, process.url) for process in (a, b)]
            assert cancelled_on == [0, 1], "B took the cancellation, A ran the call"
            assert ran["status"] == "cancelled"
            assert ran["error"]["code"] == "cancelled", "ended by the cancellation, not by the disconnect grace"  # type: ignore[index]
            assert (await _status(http, b.url, run["run_id"]))["status"] == "cancelled"
