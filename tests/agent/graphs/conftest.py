from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agent.config import AgentConfig
from agent.stores import open_stores
from tests.support.graph_projects import isolated_loading

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path

    from langgraph.checkpoint.base import BaseCheckpointSaver


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    yield from isolated_loading(monkeypatch, tmp_path)


@pytest.fixture
async def checkpointer(tmp_path: Path) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The service's own checkpointer on its embedded stores (SQLite)."""
    async with open_stores(AgentConfig(data_dir=tmp_path / "data")) as stores:
        yield stores.checkpointer
