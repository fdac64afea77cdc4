"""schemathesis (v4) fuzzes the served contract: every operation, every phase, every check.

The fuzzer runs as its CLI against a real `harness serve` on loopback, once for the JSON contract, once
with `Accept: text/event-stream`, where each event's data is validated against the envelope schema, and
once with identity on and a valid bearer token, where its auth checks (`ignored_auth`: an operation that
declares the bearer scheme must refuse a request without it or with a wrong one) run too.
Every session fuzzes with a fresh seed (or `HARNESS_FUZZ_SEED`), printed in pytest's header and in any
failure so the finding replays; `make fuzz` runs longer.
"""

from __future__ import annotations

import contextlib
import json
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


TOKEN = "fuzz-token-0123456789abcdef"


@contextlib.contextmanager
def harness(directory: Path, **env: str) -> Iterator[str]:
    """A real ``harness serve`` on loopback; yields its URL."""
    port = free_port()
    env = {
        **os.environ,
        "HARNESS_DATA_DIR": str(directory),
        "HARNESS_PORT": str(port),
        "HARNESS_STUB_TOKEN_DELAY_MS": "0",
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
        "HARNESS_HEARTBEAT_S": "0.5",
        # a run paused at an approval holds its stream open for its human; the fuzzer would wait on it for ever
        "HARNESS_STREAM_MAX_S": "2",
        **env,
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


@pytest.fixture(scope="module")
def anonymous_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with harness(tmp_path_factory.mktemp("fuzz")) as url:
        yield url


@pytest.fixture(scope="module")
def identity_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    directory = tmp_path_factory.mktemp("fuzz-identity")
    tokens = directory / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [{"token": TOKEN, "subject": "fuzzer", "account_id": "ACC-2001"}]}))
    with harness(directory, HARNESS_AUTH_TOKENS_FILE=str(tokens), HARNESS_STREAMS_PER_SUBJECT="1000") as url:
        yield url


@pytest.mark.parametrize(
    ("server", "extra"),
    [
        ("anonymous_url", []),
        ("anonymous_url", ["-H", "Accept: text/event-stream"]),
        ("identity_url", ["-H", f"Authorization: Bearer {TOKEN}"]),
    ],
    ids=["json contract", "event-stream branch", "identity on"],
)
def test_the_fuzzer_finds_nothing(request: pytest.FixtureRequest, server: str, extra: list[str]) -> None:
    server_url: str = request.getfixturevalue(server)
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
        timeout=1200,  # a hang guard: the run takes 2-4 min alone, several times that on a loaded machine
    )
    assert result.returncode == 0, f"{replay_hint()}\n" + result.stdout[-6000:] + result.stderr[-2000:]
    assert "passed" in result.stdout
