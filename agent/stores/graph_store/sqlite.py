"""The embedded long-term store: LangGraph's ``AsyncSqliteStore`` in ``store.sqlite`` of the data directory."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import aiosqlite
from langgraph.store.sqlite.aio import AsyncSqliteStore

from agent.stores.graph_store.base import STORE_TTL, GraphStore

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from agent.sealing import Sealer

__all__ = ("STORE_FILE", "open_sqlite_graph_store")

STORE_FILE = "store.sqlite"


@asynccontextmanager
async def open_sqlite_graph_store(
    path: Path, sealer: Sealer | None = None, *, sweep_interval_s: float = 60.0
) -> AsyncIterator[GraphStore]:
    """The store in the file ``path`` (its tables made on first use), its expired items swept while open."""
    # autocommit: LangGraph's store opens and commits its own transactions
    async with aiosqlite.connect(path, isolation_level=None) as connection:
        await connection.execute("PRAGMA journal_mode=WAL")
        await connection.execute("PRAGMA synchronous=NORMAL")
        await connection.execute("PRAGMA secure_delete=ON")  # an erased item is overwritten, not left behind
        backend = AsyncSqliteStore(connection, ttl=STORE_TTL)
        await backend.setup()
        store = GraphStore(backend, sealer, sweep=backend.sweep_ttl, sweep_interval_s=sweep_interval_s)
        async with store.sweeping():
            yield store
