"""`harness serve` as operators run it: a shutdown ends open streams and marks unfinished runs."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

import httpx

from tests.support.harness_process import HarnessProcess
from tests.support.sse import frames

if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.shared_stores import SharedStores

SSE = {"Accept": "text/event-stream"}


def instance_env(data_dir: Path, stores: SharedStores | None) -> dict[str, str]:
    return {
        "HARNESS_DATA_DIR": str(data_dir),
        "HARNESS_STUB_TOKEN_DELAY_MS": "300",
        "HARNESS_HEARTBEAT_S": "0.2",
        **(stores.env if stores else {}),
    }


async def test_sigterm_ends_streams_with_a_terminal_error_and_keeps_paused_runs(
    tmp_path: Path, stores: SharedStores | None
) -> None:
    server = await HarnessProcess(instance_env(tmp_path, stores)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
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
                assert server.process is not None
                server.process.send_signal(signal.SIGTERM)
                rest = [f async for f in running if f.event]
                waiting = [f async for f in frames(waiting_stream) if f.event]
        assert server.process.wait(timeout=20) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
    finally:
        server.close()

    assert [f.event for f in rest][-1] == "error"
    assert rest[-1].data["status"] == "failed"
    assert rest[-1].data["data"]["code"] == "server_shutdown"
    assert rest[-1].data["data"]["retryable"] is True
    assert waiting[-1].event == "paused", "a paused run's stream ends without a terminal event"

    server = await HarnessProcess(instance_env(tmp_path, stores), port=server.port).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            failed = (await client.get(f"/runs/{run_id}")).json()
            still_paused = (await client.get(f"/runs/{paused['run_id']}")).json()
            decision = {
                "run_id": paused["run_id"],
                "approval_id": paused["pending_approval"]["approval_id"],
                "decision": "approve",
            }
            resumed = (await client.post("/chat/resume", json=decision)).json()
    finally:
        server.close()

    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "server_shutdown"
    assert still_paused["status"] == "waiting"
    assert still_paused["pending_approval"] == paused["pending_approval"]
    assert resumed["status"] == "completed"
    assert resumed["answer"]["kind"] == "action_result"
