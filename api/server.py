"""Running the app under uvicorn, with a shutdown that ends open streams instead of waiting on them.

uvicorn waits for open connections before it runs the lifespan shutdown, and an SSE stream of a run
paused for a human would keep it waiting forever. On the first signal the registry ends every stream
and fails every running run with ``server_shutdown``; then uvicorn's own shutdown proceeds. With identity
on, SIGHUP re-reads the tokens file (and ends the streams of the tokens it no longer names) instead of
stopping the process.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from typing import TYPE_CHECKING, Any

import msgspec
import uvicorn

from agent import configured_secrets, install_log_redaction
from agent.llm import local_model_served
from api.app import create_app
from api.auth import identity_secrets
from api.graph_registry import check_graphs
from api.request_checks import with_header_deadline
from api.runs.stores import check_run_stores_open, check_stores
from api.settings import Settings

if TYPE_CHECKING:
    import socket
    from pathlib import Path
    from types import FrameType

    from litestar import Litestar

    from api.auth.identity import Identity

__all__ = ("GracefulServer", "serve", "uvicorn_config")

_GRACEFUL_SHUTDOWN_S = 10
logger = logging.getLogger(__name__)

_GC_THRESHOLDS = (20_000, 20, 20)
"""Young objects a collection waits for (Python: 700): a turn allocates thousands, nearly all freed at once."""


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: Litestar) -> None:
        super().__init__(config)
        self._app = app

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        loop = type(asyncio.get_running_loop()).__module__.partition(".")[0]
        parser = self.config.http_protocol_class.__name__.removesuffix("Protocol").lower()
        logger.info("serving on the %s event loop with the %s HTTP parser", loop, parser)
        await super().startup(sockets)  # the lifespan first: the agent, its graph and the stores are opened here
        identity: Identity | None = self._app.state.get("auth")
        if identity is not None:
            asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, identity.reload, "SIGHUP")
        # What the process holds after start-up lives as long as it does: the collector need not walk it again.
        gc.freeze()
        gc.set_threshold(*_GC_THRESHOLDS)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        runs = getattr(self._app.state, "runs", None)
        if runs is not None:
            runs.begin_shutdown()
        super().handle_exit(sig, frame)


def uvicorn_config(app: Litestar, *, host: str, port: int, read_timeout_s: float, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app``, its HTTP parser giving each request ``read_timeout_s`` to send its
    headers (``api.request_checks.read_deadline``; the body's deadline is the app's own)."""
    config = uvicorn.Config(app, host=host, port=port, **options)
    config.load()
    config.http_protocol_class = with_header_deadline(config.http_protocol_class, read_timeout_s)
    return config


def serve(
    *, host: str | None = None, port: int | None = None, provider: str | None = None, config: Path | None = None
) -> int:
    settings = Settings.from_env()
    if config is not None:
        settings = msgspec.structs.replace(settings, graphs_config=config)
    if provider is not None:
        llm = msgspec.structs.replace(settings.agent.llm, provider=provider)
        settings = msgspec.structs.replace(settings, agent=msgspec.structs.replace(settings.agent, llm=llm))
    with local_model_served(settings.agent) as agent:  # `local` alone: the bundled model, started here
        return _serve(msgspec.structs.replace(settings, agent=agent), host=host, port=port)


def _serve(settings: Settings, *, host: str | None, port: int | None) -> int:
    # no log line carries a key, a token or personal data
    install_log_redaction([*configured_secrets(settings.agent), *identity_secrets(settings.auth)])
    asyncio.run(check_stores(settings.runs))  # a store that is down is one clear line, not a traceback
    asyncio.run(
        check_run_stores_open(settings.runs)
    )  # so is a key that does not fit the stores, or plain values with one
    asyncio.run(check_graphs(settings))  # and a configured graph that does not load: one line per graph
    app = create_app(msgspec.structs.replace(settings, host=host or settings.host))  # its own name is allowed
    config = uvicorn_config(
        app,
        host=host or settings.host,
        port=settings.port if port is None else port,
        read_timeout_s=settings.request_read_timeout_s,
        timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_S,
        log_level="info",
    )
    logging.basicConfig(level=logging.INFO)
    GracefulServer(config, app).run()
    return 0
