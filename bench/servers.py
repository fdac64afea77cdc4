"""The servers under test, each in its own process pinned to core 0, on uvicorn with uvloop and httptools.

Three apps over the same agent graph (``agent.runtime.open_agent`` on a fresh data directory):

- ``raw``: a minimal raw-ASGI app, no log, no framework (``bench.raw_app``);
- ``fastapi``: FastAPI + sse-starlette + a pydantic request model, no log (``bench.fastapi_app``);
- ``harness``: the product, ``api.app.create_app``, every event committed to its log before it is sent
  (the embedded SQLite log, or Redis and PostgreSQL when given shared stores), on the server
  ``harness serve`` runs (``api.server.GracefulServer``).

``Server`` starts one (``python -m bench.servers APP ...`` under ``taskset -c 0``) and stops it and removes
its data directory when its ``with`` block ends, Ctrl-C included.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from bench.system import cpu_seconds, raise_open_files, rss_kb, taskset_prefix

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ("APPS", "Server", "SharedStoreUrls", "free_port")

APPS = ("raw", "fastapi", "harness")
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class SharedStoreUrls:
    """Redis and PostgreSQL for the harness instead of its embedded SQLite stores."""

    redis_url: str
    database_url: str
    redis_prefix: str


@dataclass(frozen=True)
class ServerOptions:
    app: str
    model: str
    heartbeat_s: float = 15.0
    replay_window: int = 10_000
    shared: SharedStoreUrls | None = None
    sealed: bool = False
    cprofile: Path | None = None

    def argv(self, port: int, data_dir: Path) -> list[str]:
        args = [self.app, "--port", str(port), "--data-dir", str(data_dir), "--model", self.model]
        args += ["--heartbeat-s", str(self.heartbeat_s), "--replay-window", str(self.replay_window)]
        if self.shared is not None:
            args += ["--redis-url", self.shared.redis_url, "--database-url", self.shared.database_url]
            args += ["--redis-prefix", self.shared.redis_prefix]
        if self.sealed:
            args.append("--sealed")
        if self.cprofile is not None:
            args += ["--cprofile", str(self.cprofile)]
        return args


class Server:
    """One server process on a free loopback port; ``with Server(...) as server:`` waits until it answers.

    Its data directory is a fresh temporary one, removed at the end, unless ``data_dir`` is given (a server
    restarted on the runs of an earlier one); the caller removes that one.
    """

    def __init__(self, app: str, model: str, *, data_dir: Path | None = None, **options: Any) -> None:
        self.options = ServerOptions(app, model, **options)
        self.port = free_port()
        self._owns_data = data_dir is None
        self._data_dir = data_dir or Path(tempfile.mkdtemp(prefix=f"bench-{app}-"))
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self._process is not None, "the server runs"
        return self._process.pid

    def rss_kb(self) -> int:
        return rss_kb(self.pid)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)

    def __enter__(self) -> Server:
        command = [
            *taskset_prefix(),
            sys.executable,
            "-m",
            "bench.servers",
            *self.options.argv(self.port, self._data_dir),
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self._process = subprocess.Popen(command, env=env, cwd=ROOT, start_new_session=True)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if self._process is not None and self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)
                try:
                    self._process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait(timeout=10)
        finally:
            if self._owns_data:
                shutil.rmtree(self._data_dir, ignore_errors=True)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"the {self.options.app} server exited with {self._process.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the {self.options.app} server did not answer in 120 s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# --- inside the server process ---


def build_app(args: argparse.Namespace) -> Any:
    from bench.models import model_for

    llm = model_for(args.model)
    if args.app == "raw":
        from bench.raw_app import raw_app

        return raw_app(args.data_dir, llm, args.heartbeat_s)
    if args.app == "fastapi":
        from bench.fastapi_app import fastapi_app

        return fastapi_app(args.data_dir, llm)
    return harness_app(args, llm)


def harness_app(args: argparse.Namespace, llm: Any) -> Any:
    from agent.config import AgentConfig, StubConfig
    from agent.encryption import EncryptionKey
    from api.app import create_app
    from api.settings import Settings

    agent = AgentConfig(
        data_dir=args.data_dir,
        stub=StubConfig(token_delay_ms=0),
        database_url=args.database_url,
        encryption_key=EncryptionKey(os.urandom(32)) if args.sealed else None,
    )
    settings = Settings(
        heartbeat_s=args.heartbeat_s,
        rate_limit_per_minute=0,
        replay_window=args.replay_window,
        redis_url=args.redis_url,
        redis_prefix=args.redis_prefix,
        agent=agent,
    )
    return create_app(settings, llm=llm)


def serve(args: argparse.Namespace) -> None:
    import uvicorn

    raise_open_files()
    app = build_app(args)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=args.port,
        loop="uvloop",
        http="httptools",
        lifespan="on",
        log_level="warning",
        access_log=False,
        backlog=4096,
        timeout_graceful_shutdown=2,
    )
    profiler = cProfile.Profile() if args.cprofile else None
    if profiler is not None:
        # uvicorn raises the stopping signal again once it has shut down; let that return to the dump below
        signal.signal(signal.SIGTERM, lambda *_: None)
        profiler.enable()
    try:
        server_for(args.app, config, app).run()
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.cprofile)


def server_for(app_name: str, config: Any, app: Any) -> Any:
    """uvicorn's server; for the harness, the one ``harness serve`` runs (its start-up and shutdown)."""
    import uvicorn

    if app_name == "harness":
        from api.server import GracefulServer

        return GracefulServer(config, app)
    return uvicorn.Server(config)


def main() -> None:
    parser = argparse.ArgumentParser(description="Run one benchmark server (started by bench.servers.Server).")
    parser.add_argument("app", choices=APPS)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--model", default="stub", help="firehose:N, silent or stub")
    parser.add_argument("--heartbeat-s", type=float, default=15.0)
    parser.add_argument("--replay-window", type=int, default=10_000)
    parser.add_argument("--redis-url")
    parser.add_argument("--database-url")
    parser.add_argument("--redis-prefix", default="harness")
    parser.add_argument("--sealed", action="store_true", help="the harness seals what it stores, under a fresh key")
    parser.add_argument("--cprofile", type=Path, help="profile the whole process with cProfile into this file")
    serve(parser.parse_args())


if __name__ == "__main__":
    main()
