"""The embedded stores: SQLite files in the data directory."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agent.actions.ledger import SqliteLedger
from agent.interactions import SqliteInteractionLog
from agent.stores import AgentStores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

__all__ = ("open_sqlite_stores",)


@asynccontextmanager
async def open_sqlite_stores(data_dir: Path) -> AsyncIterator[AgentStores]:
    await asyncio.to_thread(data_dir.mkdir, parents=True, exist_ok=True)
    ledger = SqliteLedger(data_dir / "ledger.sqlite")
    interactions = SqliteInteractionLog(data_dir / "interactions.sqlite")
    try:
        async with aiosqlite.connect(data_dir / "checkpoints.sqlite") as connection:
            # WAL without a sync per commit: a checkpoint per superstep must not cost an fsync each
            await connection.execute("PRAGMA journal_mode=WAL")
            await connection.execute("PRAGMA synchronous=NORMAL")
            yield AgentStores(checkpointer=AsyncSqliteSaver(connection), ledger=ledger, interactions=interactions)
    finally:
        interactions.close()
        ledger.close()
