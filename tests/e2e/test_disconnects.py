"""Clients that leave: the run waits for them within the grace period, and is aborted when none comes back."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from agent.clock import SequentialIds
from tests.support.fake_llms import EndlessLLM
from tests.support.sse import Frame, frames

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

SSE = {"Accept": "text/event-stream"}
PASSWORD = {"message": "How do I reset my password?"}


_HANG_S = 60


def slow(settings: Settings, *, grace_s: float, token_delay_ms: float = 200) -> Settings:
    stub = msgspec.structs.replace(settings.agent.stub, token_delay_ms=token_delay_ms)
    agent = msgspec.structs.replace(settings.agent, stub=stub)
    return msgspec.structs.replace(settings, agent=agent, disconnect_grace_s=grace_s)


async def snapshot_when_settled(client: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    """Poll the run's snapshot (not a subscriber, so it does not keep the run alive) until it stops running.

    The deadline only turns a hang into a failure; how soon the run stopped is shown by what it did meanwhile
    (the tokens it streamed), never by the clock."""
    deadline = time.monotonic() + _HANG_S
    while True:
        snapshot: dict[str, Any] = (await client.get(f"/runs/{run_id}")).json()
        if snapshot["status"] != "running":
            return snapshot
        assert time.monotonic() < deadline, f"run {run_id} still running after {_HANG_S}s"
        await asyncio.sleep(0.02)


async def test_with_grace_0_a_disconnect_aborts_the_running_node_at_once(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    server = serve(slow(settings, grace_s=0))
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        async with client.stream("POST", "/chat", json=PASSWORD, headers=SSE) as response:
            async for frame in frames(response):
                if frame.event == "token_delta":
                    run_id = frame.data["run_id"]
                    break
        snapshot = await snapshot_when_settled(client, run_id)
        async with client.stream("GET", f"/runs/{run_id}/events") as response:
            log = [f async for f in frames(response) if f.event]

    assert snapshot["status"] == "cancelled"
    assert snapshot["error"]["code"] == "client_disconnected"
    assert snapshot["error"]["node"] == "generate_answer"
    assert log[-1].event == "error"
    assert log[-1].data["seq"] == snapshot["last_seq"]
    # a token every 200 ms and a grace of 0: the model stream stopped with the node, not at its own end
    assert sum(f.event == "token_delta" for f in log) < 10, "the model stream stopped with the node"


async def test_a_client_that_reconnects_within_grace_loses_nothing(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    server = serve(slow(settings, grace_s=10, token_delay_ms=20))
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        first: list[Frame] = []
        async with client.stream("POST", "/chat", json=PASSWORD, headers=SSE) as response:
            async for frame in frames(response):
                first.append(frame)
                if frame.event == "token_delta":
                    break
        last_id = first[-1].id
        async with client.stream(
            "GET", f"/runs/{first[-1].data['run_id']}/events", headers={"Last-Event-ID": last_id}
        ) as response:
            rest = [f async for f in frames(response)]

    received = [f for f in first + rest if f.event]
    assert [f.data["seq"] for f in received] == list(range(1, len(received) + 1))
    assert received[-1].event == "turn_completed"


async def test_a_json_client_that_leaves_aborts_its_run_too(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    server = serve(slow(settings, grace_s=0), ids=SequentialIds())
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        request = asyncio.ensure_future(client.post("/chat", json=PASSWORD))
        run_id = "r_0001"
        while (await client.get(f"/runs/{run_id}")).status_code == 404:
            await asyncio.sleep(0.01)
        request.cancel()
        snapshot = await snapshot_when_settled(client, run_id)

    assert snapshot["status"] == "cancelled"
    assert snapshot["error"]["code"] == "client_disconnected"


async def test_a_stream_blocked_in_send_does_not_outlive_its_client(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    endless = EndlessLLM(chunk_chars=8192, pause_s=0.0005)
    server = serve(msgspec.structs.replace(settings, disconnect_grace_s=0), llm=endless, ids=SequentialIds())
    reader, writer = await open_unread_connection(server.port)
    body = b'{"message": "How do I reset my password?"}'
    writer.write(
        b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    await writer.drain()
    deadline = time.monotonic() + _HANG_S
    while endless.chunks_sent < 600:  # ~10 MB of frames: more than twice what the socket buffers hold unread
        assert time.monotonic() < deadline, f"the model sent {endless.chunks_sent} chunks, then nothing"
        await asyncio.sleep(0.01)
    writer.transport.abort()
    run_id = "r_0001"

    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        snapshot = await snapshot_when_settled(client, run_id)
    assert snapshot["status"] == "cancelled"
    assert snapshot["error"]["code"] == "client_disconnected"
    del reader


async def open_unread_connection(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A client with a tiny receive buffer that never reads what it is sent."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock, limit=4096)
    writer.transport.pause_reading()
    return reader, writer
