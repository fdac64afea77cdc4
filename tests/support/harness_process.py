"""``harness serve`` as a child process, the way operators run it: for shutdown, restart and cluster tests."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING

import httpx

from tests.e2e.conftest import free_port
from tests.support.processes import stop

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ("HarnessProcess", "serve_once")


class HarnessProcess:
    """One instance; ``await start()`` returns once ``/healthz`` answers 200."""

    def __init__(self, env: Mapping[str, str], *, port: int | None = None, args: Sequence[str] = ()) -> None:
        """``args``: more of ``harness serve``'s (``--config PATH``)."""
        self.args = list(args)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._env = {**os.environ, **env, "HARNESS_PORT": str(self.port)}
        self.process: subprocess.Popen[bytes] | None = None
        # a file, not a pipe: an instance logging a lot (a store outage) must never block on a full pipe
        self._log = tempfile.TemporaryFile(prefix="harness-serve-")  # noqa: SIM115 (closed by close())

    async def start(self, *, within_s: float = 30) -> HarnessProcess:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve", *self.args],
            env=self._env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        async with httpx.AsyncClient() as client:
            for _ in range(int(within_s / 0.05)):
                try:
                    if (await client.get(f"{self.url}/healthz")).status_code == 200:
                        return self
                except httpx.TransportError:
                    pass
                if self.process.poll() is not None:
                    raise AssertionError(f"harness serve exited: {self.stderr()}")
                await asyncio.sleep(0.05)
        self.kill()
        raise AssertionError("harness serve did not become healthy")

    def stderr(self) -> str:
        """What the instance wrote so far (its log, and stdout)."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def terminate(self, *, within_s: float = 20) -> int:
        """SIGTERM, as an orchestrator stops an instance; its exit status."""
        assert self.process is not None
        stop(self.process, signal.SIGTERM, within_s=within_s)
        return self.process.returncode

    def kill(self) -> None:
        """kill -9: the instance dies without a word to anyone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop(self.process, signal.SIGTERM, within_s=20)
        self._log.close()


def serve_once(env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """``harness serve`` expected to refuse to start: its exit code and what it printed."""
    return subprocess.run(
        [sys.executable, "-m", "api.cli", "serve"],
        env={**os.environ, "HARNESS_PORT": str(free_port()), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
