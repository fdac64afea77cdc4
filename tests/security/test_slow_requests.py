"""Issue 34, finding 12: a request sent slowly is answered, not held. Its headers, then its body, must each arrive
within ``HARNESS_REQUEST_READ_TIMEOUT_S``; a slower client gets a 408 problem and its connection closes, on both
of uvicorn's HTTP parsers, for the first request of a connection and for the next one on a kept-alive connection.
Over a real uvicorn (raw sockets: an HTTP client library would send the request whole)."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import time
from typing import TYPE_CHECKING

import pytest

from agent.config import AgentConfig, StubConfig
from api.app import create_app
from api.settings import Settings
from contracts import PROBLEM_MEDIA_TYPE
from tests.e2e.conftest import LiveServer

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

READ_TIMEOUT_S = 1.0
ANSWER_WITHIN_S = 15.0
"""How long the test waits for an answer: far past the deadline, so only a server that holds the request fails."""
BODY = json.dumps({"message": "How do I reset my password?"}).encode()


@pytest.fixture(params=["h11", "httptools"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveServer]:
    """The embedded stores are enough: the deadline is the transport's, before any store is touched."""
    agent = AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0))
    quick = Settings(request_read_timeout_s=READ_TIMEOUT_S, rate_limit_per_minute=0, agent=agent)
    with LiveServer(create_app(quick), read_timeout_s=READ_TIMEOUT_S, http=request.param) as live:
        live.settings = quick  # type: ignore[attr-defined]
        yield live


def connect(server: LiveServer) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", server.port))
    connection.settimeout(ANSWER_WITHIN_S)
    return connection


def head(length: int) -> bytes:
    return (
        b"POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % length
    )


def read_until_closed(connection: socket.socket) -> bytes:
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def assert_timed_out(received: bytes) -> None:
    status, _, rest = received.partition(b"\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout", received[:200]
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert f"content-type: {PROBLEM_MEDIA_TYPE}".encode() in headers.lower()
    assert b"connection: close" in headers.lower()
    assert json.loads(body)["code"] == "request_timeout"


def runs_stored(server: LiveServer) -> int:
    path = server.settings.agent.data_dir / "events.sqlite"  # type: ignore[attr-defined]
    with contextlib.closing(sqlite3.connect(path)) as db:
        count: int = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    return count


def test_a_body_sent_slowly_is_answered_408_and_starts_nothing(server: LiveServer) -> None:
    with connect(server) as connection:
        connection.sendall(head(len(BODY)) + BODY[:5])
        for byte in BODY[5:7]:  # a byte now and then, the last before the deadline (no byte left unread)
            time.sleep(READ_TIMEOUT_S / 4)
            connection.sendall(bytes([byte]))
        assert_timed_out(read_until_closed(connection))
    assert runs_stored(server) == 0


def test_headers_sent_slowly_are_answered_408(server: LiveServer) -> None:
    with connect(server) as connection:
        connection.sendall(b"POST /chat HTTP/1.1\r\n")
        for header in (b"Host: 127.0.0.1\r\n", b"Content-Type: application/json\r\n"):
            time.sleep(READ_TIMEOUT_S / 4)
            connection.sendall(header)
        assert_timed_out(read_until_closed(connection))


def test_the_next_request_of_a_kept_alive_connection_has_the_same_deadline(server: LiveServer) -> None:
    with connect(server) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = connection.recv(65536)
        assert first.startswith(b"HTTP/1.1 200"), first[:200]
        connection.sendall(b"GET /healthz HTTP/1.1\r\n")  # and the rest of its headers never
        assert_timed_out(read_until_closed(connection))


def test_a_connection_that_sends_nothing_is_closed(server: LiveServer) -> None:
    with connect(server) as connection:
        assert read_until_closed(connection) == b""


def test_a_request_sent_at_once_is_served_and_its_connection_kept(server: LiveServer) -> None:
    with connect(server) as connection:
        connection.sendall(head(len(BODY)) + BODY)
        time.sleep(READ_TIMEOUT_S * 1.5)  # idle past the deadline, within uvicorn's keep-alive: still usable
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        received = read_until_closed(connection)
    assert received.startswith(b"HTTP/1.1 200"), received[:200]
    assert received.count(b"HTTP/1.1 200") == 2
    assert runs_stored(server) == 1
