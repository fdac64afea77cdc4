"""A real uvicorn on loopback: the transport (flushing, disconnects, heartbeats) is what these tests test."""

from __future__ import annotations

import socket
import threading
import time
from typing import TYPE_CHECKING

import pytest
import uvicorn

from api.app import create_app
from api.server import uvicorn_config

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from litestar import Litestar

    from api.settings import Settings


class LiveServer:
    def __init__(self, app: Litestar, *, read_timeout_s: float = 10.0, **options: object) -> None:
        """``options``: more of uvicorn's (``http="h11"``)."""
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn_config(
            app,
            host="127.0.0.1",
            port=self.port,
            read_timeout_s=read_timeout_s,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=5,
            **options,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def serve() -> Iterator[Callable[..., LiveServer]]:
    """Start the app of the given settings under a real uvicorn; stopped at the end of the test."""
    servers: list[LiveServer] = []

    def start(settings: Settings, **overrides: object) -> LiveServer:
        server = LiveServer(create_app(settings, **overrides), read_timeout_s=settings.request_read_timeout_s)  # type: ignore[arg-type]
        servers.append(server.__enter__())
        return server

    yield start
    for server in reversed(servers):
        server.__exit__()
