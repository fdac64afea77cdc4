"""The long-term store's tests run on both backends: ``open_store`` opens a fresh one of each."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import pytest

from agent.stores.graph_store.postgres import postgres_graph_store
from agent.stores.graph_store.sqlite import open_sqlite_graph_store
from agent.stores.postgres import migration_lock, open_pool
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from pathlib import Path

    from agent.sealing import Sealer
    from agent.stores import GraphStore


@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[Sealer | None], Any]:
    """Opens a fresh store on the backend of the test's parameter, with or without a sealer."""

    @asynccontextmanager
    async def opened(sealer: Sealer | None) -> AsyncIterator[GraphStore]:
        if request.param == "sqlite":
            async with open_sqlite_graph_store(tmp_path / "store.sqlite", sealer) as store:
                yield store
            return
        with fresh_shared_stores() as shared:
            async with open_pool(shared.database_url) as pool:
                async with migration_lock(pool):
                    store = await postgres_graph_store(pool, sealer)
                async with store.sweeping():
                    yield store

    return opened
