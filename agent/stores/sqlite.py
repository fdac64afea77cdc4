"""The embedded stores: SQLite files in the data directory."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agent.actions.ledger import SqliteLedger
from agent.encryption import checkpoint_serde
from agent.interactions import SqliteInteractionLog
from agent.stores import AgentStores
from agent.stores.graph_store.sqlite import STORE_FILE, open_sqlite_graph_store
from agent.stores.key_check import check_key
from agent.stores.private_files import private_sqlite_files
from agent.stores.sqlite_key_check import SqliteKeyCheck

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from agent.sealing import Sealer

__all__ = ("open_sqlite_stores",)

_FILES = ("ledger.sqlite", "interactions.sqlite", "checkpoints.sqlite", STORE_FILE)


@asynccontextmanager
async def open_sqlite_stores(data_dir: Path, sealer: Sealer | None = None) -> AsyncIterator[AgentStores]:
    """The stores in ``data_dir``; with ``sealer``, what they hold is sealed (and the key checked first)."""
    await asyncio.to_thread(private_sqlite_files, data_dir, *_FILES)
    ledger = SqliteLedger(data_dir / "ledger.sqlite")
    interactions = SqliteInteractionLog(data_dir / "interactions.sqlite", sealer)
    try:
        path = data_dir / "checkpoints.sqlite"
        async with aiosqlite.connect(path) as connection:
            # WAL without a sync per commit: a checkpoint per superstep must not cost an fsync each
            await connection.execute("PRAGMA journal_mode=WAL")
            await connection.execute("PRAGMA synchronous=NORMAL")
            await connection.execute("PRAGMA secure_delete=ON")  # an erased session is overwritten, not left behind
            saver = AsyncSqliteSaver(connection, serde=checkpoint_serde(sealer))
            await saver.setup()
            await check_key(SqliteKeyCheck(connection, str(path)), sealer)
            await check_key(interactions.key_check(), sealer)
            async with open_sqlite_graph_store(data_dir / STORE_FILE, sealer) as graph_store:
                yield AgentStores(
                    checkpointer=saver, ledger=ledger, interactions=interactions, sealer=sealer, graph_store=graph_store
                )
    finally:
        interactions.close()
        ledger.close()
