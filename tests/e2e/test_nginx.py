"""A real nginx (Debian's) in front of the service, configured as docs/nginx.conf says.

Tokens must arrive through it while the run is still producing them, with the service's headers; a stream
that waits for a person must deliver its ``paused`` event and heartbeats at once; and ``harness doctor``
must pass through it, and catch the same nginx told to buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import msgspec
import pytest

from tests.e2e.conftest import free_port
from tests.support.fake_llms import GatedLLM
from tests.support.processes import stop
from tests.support.sse import frames

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.sse import Frame

ROOT = Path(__file__).resolve().parents[2]
RECOMMENDED = (ROOT / "docs" / "nginx.conf").read_text()
SSE = {"Accept": "text/event-stream"}
# Well-meant settings that hold event streams back: compression, with nginx told to ignore the service's
# `X-Accel-Buffering: no` (honoured, it makes nginx flush every event through the compressor).
BUFFERING = """
        proxy_ignore_headers X-Accel-Buffering;
        gzip on;
        gzip_types text/event-stream;
        gzip_proxied any;
        gzip_min_length 0;"""


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        message = "nginx is missing (apt-get install -y nginx; `make test` installs it when run as root)"
        pytest.skip(message)
    return found


def render(upstream_port: int, listen_port: int, home: Path, *, buffering: bool) -> str:
    """docs/nginx.conf with the test's ports, inside a main config of its own (pid, logs, temp files)."""
    site = RECOMMENDED
    for old, new in (
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream_port};"),
        ("listen 8080;", f"listen 127.0.0.1:{listen_port};"),
    ):
        assert site.count(old) == 1, f"docs/nginx.conf no longer has `{old}`"
        site = site.replace(old, new)
    if buffering:
        site = site.replace("proxy_pass http://harness;", "proxy_pass http://harness;" + BUFFERING)
    temp = "\n".join(
        f"    {kind}_temp_path {home / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must reach the private temp folders
    return (
        f"{user}worker_processes 1;\npid {home / 'nginx.pid'};\nerror_log {home / 'error.log'} info;\n"
        f"events {{ worker_connections 256; }}\nhttp {{\n    access_log off;\n{temp}\n{site}\n}}\n"
    )


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start nginx in front of a service port; answers nginx's URL. Stopped at the end of the test."""
    binary = nginx_binary()
    started: list[subprocess.Popen[bytes]] = []

    def start(upstream_port: int, *, buffering: bool = False) -> str:
        home = tmp_path / f"nginx-{len(started)}"
        home.mkdir()
        port = free_port()
        (home / "nginx.conf").write_text(render(upstream_port, port, home, buffering=buffering))
        process = subprocess.Popen(
            [
                binary,
                "-e",
                str(home / "error.log"),
                "-p",
                str(home),
                "-c",
                str(home / "nginx.conf"),
                "-g",
                "daemon off;",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started.append(process)
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                return f"http://127.0.0.1:{port}"
            if process.poll() is not None or time.monotonic() > deadline:
                stderr = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"nginx did not start: {stderr}{(home / 'error.log').read_text()}")
            time.sleep(0.05)  # polling a subprocess for readiness, not synchronising a test

    yield start
    for process in started:
        stop(process, signal.SIGQUIT, within_s=10)


def streaming(settings: Settings, *, token_delay_ms: float = 0) -> Settings:
    stub = msgspec.structs.replace(settings.agent.stub, token_delay_ms=token_delay_ms)
    agent = msgspec.structs.replace(settings.agent, stub=stub)
    return msgspec.structs.replace(settings, agent=agent, heartbeat_s=0.2)


async def test_tokens_arrive_through_nginx_while_the_model_is_still_answering(
    serve: Callable[..., LiveServer], settings: Settings, nginx: Callable[..., str]
) -> None:
    llm = GatedLLM(hold_after=8)
    server = serve(streaming(settings), llm=llm)
    url = nginx(server.port)
    received: list[Frame] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        async with client.stream("POST", "/chat", json={"message": "How do I reset my password?"}, headers=SSE) as r:
            assert r.headers["content-type"] == "text/event-stream; charset=utf-8"
            assert r.headers["cache-control"] == "no-cache"
            run_id = r.headers["run-id"]
            async for frame in frames(r):
                received.append(frame)
                if frame.event == "token_delta" and frame.data["data"]["text"] and not llm.gate.is_set():
                    # the gate is shut: the model stops at its hold and cannot finish, so this token came while
                    # the answer was still being written
                    assert await asyncio.to_thread(llm.holding.wait, 10), "the model reaches its hold"
                    llm.gate.set()
        replay = (await client.get(f"{server.url}/runs/{run_id}/events")).content

    streamed = [frame for frame in received if frame.event is not None]
    assert llm.gate.is_set(), "a visible token arrived while the model was held"
    assert streamed[-1].event == "turn_completed"
    assert b"\n\n".join(frame.raw for frame in streamed) + b"\n\n" in replay, "nginx passed the bytes as sent"


async def test_a_waiting_stream_gets_its_pause_and_heartbeats_through_nginx(
    serve: Callable[..., LiveServer], settings: Settings, nginx: Callable[..., str]
) -> None:
    server = serve(streaming(settings))
    url = nginx(server.port)
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        async with client.stream(
            "POST", "/chat", json={"message": "Please refund invoice INV-1001."}, headers=SSE
        ) as r:
            stream = frames(r)
            paused = None
            async for frame in stream:
                if frame.event == "paused":
                    paused = frame.data
                    break
            assert paused is not None
            assert (await anext(stream)).raw == b": hb", "heartbeats flow while the run waits for a person"
            decision = {"run_id": paused["run_id"], "approval_id": paused["data"]["approval"]["approval_id"]}
            resumed = await client.post("/chat/resume", json={**decision, "decision": "approve"})
            rest = [frame.event async for frame in stream if frame.event is not None]

    assert resumed.status_code == 200
    assert rest[0] == "graph_topology"
    assert rest[-1] == "turn_completed", "the first stream followed the run to its end"


def doctor(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "api.cli", "doctor", "--url", url, "--timeout", "5", "--heartbeat-wait", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )


def test_harness_doctor_passes_through_the_recommended_nginx(
    serve: Callable[..., LiveServer], settings: Settings, nginx: Callable[..., str]
) -> None:
    server = serve(streaming(settings, token_delay_ms=25))
    result = doctor(nginx(server.port))

    assert result.returncode == 0, result.stdout + result.stderr
    for check in ("health", "json", "negotiation", "incremental", "replay", "waiting", "heartbeat"):
        assert f"OK    {check}" in result.stdout, result.stdout


def test_harness_doctor_catches_an_nginx_that_buffers_and_says_what_to_fix(
    serve: Callable[..., LiveServer], settings: Settings, nginx: Callable[..., str]
) -> None:
    server = serve(streaming(settings, token_delay_ms=25))
    result = doctor(nginx(server.port, buffering=True))

    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL  waiting" in result.stdout, result.stdout
    assert "FAIL  incremental" in result.stdout, result.stdout
    assert "proxy_ignore_headers" in result.stdout, "the fix names the setting"
