"""`harness serve` as operators run it: a shutdown ends open streams and marks unfinished runs."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

import httpx

from tests.e2e.conftest import free_port
from tests.support.sse import frames

if TYPE_CHECKING:
    from pathlib import Path

SSE = {"Accept": "text/event-stream"}


async def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "HARNESS_DATA_DIR": str(data_dir),
        "HARNESS_PORT": str(port),
        "HARNESS_STUB_TOKEN_DELAY_MS": "300",
        "HARNESS_HEARTBEAT_S": "0.2",
    }
    process = subprocess.Popen([sys.executable, "-m", "api.cli", "serve"], env=env, stderr=subprocess.PIPE)
    async with httpx.AsyncClient() as client:
        for _ in range(400):
            try:
                if (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                    return process
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            await asyncio.sleep(0.05)
    process.kill()
    raise AssertionError("harness serve did not become healthy")


async def test_sigterm_ends_streams_with_a_terminal_error_and_keeps_paused_runs(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = await start_server(tmp_path, port)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            paused = (await client.post("/chat", json={"message": "Please refund invoice INV-1001."})).json()
            async with (
                client.stream("GET", f"/runs/{paused['run_id']}/events") as waiting_stream,
                client.stream(
                    "POST", "/chat", json={"message": "How do I reset my password?"}, headers=SSE
                ) as running_stream,
            ):
                running = frames(running_stream)
                async for frame in running:
                    if frame.event == "token_delta":
                        run_id = frame.data["run_id"]
                        break
                server.send_signal(signal.SIGTERM)
                rest = [f async for f in running if f.event]
                waiting = [f async for f in frames(waiting_stream) if f.event]
        assert server.wait(timeout=20) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
    finally:
        if server.poll() is None:
            server.kill()

    assert [f.event for f in rest][-1] == "error"
    assert rest[-1].data["status"] == "failed"
    assert rest[-1].data["data"]["code"] == "server_shutdown"
    assert rest[-1].data["data"]["retryable"] is True
    assert waiting[-1].event == "paused", "a paused run's stream ends without a terminal event"

    server = await start_server(tmp_path, port)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            failed = (await client.get(f"/runs/{run_id}")).json()
            still_paused = (await client.get(f"/runs/{paused['run_id']}")).json()
            decision = {
                "run_id": paused["run_id"],
                "approval_id": paused["pending_approval"]["approval_id"],
                "decision": "approve",
            }
            resumed = (await client.post("/chat/resume", json=decision)).json()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)

    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "server_shutdown"
    assert still_paused["status"] == "waiting"
    assert still_paused["pending_approval"] == paused["pending_approval"]
    assert resumed["status"] == "completed"
    assert resumed["answer"]["kind"] == "action_result"
