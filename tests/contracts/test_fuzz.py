"""schemathesis (v4) fuzzes the served contract: every operation, every phase, every check.

The fuzzer runs as its CLI against a real `harness serve` on loopback, once for the JSON contract and
once with `Accept: text/event-stream`, where each event's data is validated against the envelope schema.
Every session fuzzes with a fresh seed (or `HARNESS_FUZZ_SEED`), printed in pytest's header and in any
failure so the finding replays; `make fuzz` runs longer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.e2e.conftest import free_port
from tests.support.fuzz_seed import FUZZ_SEED, replay_hint

if TYPE_CHECKING:
    from collections.abc import Iterator

CONFIG = Path(__file__).parent / "schemathesis.toml"
MAX_EXAMPLES = os.environ.get("HARNESS_FUZZ_EXAMPLES", "60")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "HARNESS_DATA_DIR": str(tmp_path_factory.mktemp("fuzz")),
        "HARNESS_PORT": str(port),
        "HARNESS_STUB_TOKEN_DELAY_MS": "0",
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
        "HARNESS_HEARTBEAT_S": "0.5",
    }
    process = subprocess.Popen([sys.executable, "-m", "api.cli", "serve"], env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                httpx.get(f"{url}/healthz", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                assert process.poll() is None, "harness serve exited"
                subprocess.run(["sleep", "0.05"], check=True)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize(
    "extra", [[], ["-H", "Accept: text/event-stream"]], ids=["json contract", "event-stream branch"]
)
def test_the_fuzzer_finds_nothing(server_url: str, extra: list[str]) -> None:
    st = shutil.which("st", path=str(Path(sys.executable).parent))
    assert st is not None, "schemathesis is part of the test extra"
    result = subprocess.run(
        [
            st,
            "--config-file",
            str(CONFIG),
            "run",
            f"{server_url}/schema/openapi.json",
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-examples",
            MAX_EXAMPLES,
            "--seed",
            FUZZ_SEED,
            "--request-timeout",
            "10",
            "--no-color",
            *extra,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, f"{replay_hint()}\n" + result.stdout[-6000:] + result.stderr[-2000:]
    assert "passed" in result.stdout
