"""``harness serve`` with encrypted checkpoints, as operators run it, on both store kinds: a paused run
survives a restart with the same key; a wrong, missing or malformed key is one clear line at start, and
nothing is served."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from tests.support.decisions import decision_for
from tests.support.harness_process import HarnessProcess, serve_once

if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.shared_stores import SharedStores

KEY = bytes(range(32)).hex()
OTHER_KEY = bytes(range(1, 33)).hex()


def store_env(tmp_path: Path, stores: SharedStores | None) -> dict[str, str]:
    return {
        "HARNESS_DATA_DIR": str(tmp_path / "data"),
        "HARNESS_STUB_TOKEN_DELAY_MS": "0",
        **(stores.env if stores else {}),
    }


async def test_a_paused_run_survives_a_restart_and_only_its_key_opens_the_store(
    tmp_path: Path, stores: SharedStores | None
) -> None:
    env = {**store_env(tmp_path, stores), "HARNESS_ENCRYPTION_KEY": KEY}
    first = await HarnessProcess(env).start()
    try:
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
            paused = (await client.post("/chat", json={"message": "Please refund invoice INV-1001."})).json()
    finally:
        first.close()
    assert paused["status"] == "paused"

    second = await HarnessProcess(env).start()
    try:
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as client:
            done = (await client.post("/chat/resume", json=decision_for(paused, "approve"))).json()
    finally:
        second.close()
    assert done["status"] == "completed"
    assert done["answer"]["text"].startswith("Refund of $42.00 for invoice INV-1001")

    wrong = serve_once({**env, "HARNESS_ENCRYPTION_KEY": OTHER_KEY})
    missing = serve_once({**env, "HARNESS_ENCRYPTION_KEY": ""})

    assert wrong.returncode == missing.returncode == 2
    assert wrong.stderr.startswith("harness: HARNESS_ENCRYPTION_KEY is not the key the checkpoints in ")
    assert missing.stderr.startswith("harness: the checkpoints in ")
    assert "are encrypted: set HARNESS_ENCRYPTION_KEY" in missing.stderr
    for failed in (wrong, missing):
        assert failed.stderr.count("\n") == 1, failed.stderr
        assert "Traceback" not in failed.stderr
        assert "Uvicorn running" not in failed.stderr + failed.stdout


@pytest.mark.parametrize("malformed", ["not-a-key", KEY[:40]])
def test_a_malformed_key_is_one_clear_line(tmp_path: Path, malformed: str) -> None:
    failed = serve_once({**store_env(tmp_path, None), "HARNESS_ENCRYPTION_KEY": malformed})

    assert failed.returncode == 2
    assert failed.stderr.startswith("harness: HARNESS_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64")
    assert failed.stderr.count("\n") == 1
    assert malformed not in failed.stderr
