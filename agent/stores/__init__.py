"""Where the agent keeps what it must not lose: checkpoints, the interaction log, the ledger and the long-term store.

Embedded SQLite files in the data directory by default; PostgreSQL when ``HARNESS_DATABASE_URL`` is set,
so that any number of instances share them. Public beside this package: ``agent.stores.postgres`` (the shared
stores, with the ``cluster`` extra) and ``agent.stores.reseal`` (``harness rotate-key``).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.errors import AgentError
from agent.stores import graph_store
from agent.stores.graph_store import *  # noqa: F403 (the long-term store's names are the stores' too)
from agent.stores.key_check import RECORD_TYPE, EncryptionKeyError, PlainValuesError, check_key, sealed_record
from agent.stores.private_files import private_sqlite_file
from agent.stores.scrubbing import scrub
from agent.stores.sqlite_key_check import SqliteFileKeyCheck

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from langgraph.checkpoint.base import BaseCheckpointSaver

    from agent.actions.ledger import Ledger
    from agent.config import AgentConfig
    from agent.interactions import InteractionLog
    from agent.sealing import Sealer
    from agent.stores.graph_store import GraphStore

__all__ = [
    "RECORD_TYPE",
    "AgentStores",
    "EncryptionKeyError",
    "PlainValuesError",
    "SqliteFileKeyCheck",
    "StoreUnavailable",
    "check_key",
    "is_store_failure",
    "open_stores",
    "private_sqlite_file",
    "scrub",
    "sealed_record",
]
__all__ += graph_store.__all__


class StoreUnavailable(AgentError, RuntimeError):
    """A shared store cannot be reached; the message names it (without its password) and what failed."""


@dataclass(frozen=True, slots=True)
class AgentStores:
    checkpointer: BaseCheckpointSaver[Any]
    ledger: Ledger
    interactions: InteractionLog
    database: Any = None
    """The PostgreSQL connection pool (``psycopg_pool.AsyncConnectionPool``) when the stores are shared."""
    sealer: Sealer | None = None
    """What seals the stores' values with ``HARNESS_ENCRYPTION_KEY`` (``agent.sealing``); the run stores use it too."""
    graph_store: GraphStore | None = None
    """The long-term store of the graphs and of ``/store/*`` (``agent.stores.graph_store``)."""

    async def erase_sessions(self, session_ids: Sequence[str]) -> None:
        """Remove the sessions' checkpoints: a session is a LangGraph thread."""
        for session_id in session_ids:
            await self.checkpointer.adelete_thread(session_id)

    async def compact(self) -> None:
        """Leave nothing removed in the stores' files (``agent.stores.scrubbing``); PostgreSQL reclaims its own."""
        await self.interactions.compact()
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        from agent.stores.scrubbing import SCRUB

        saver = self.checkpointer
        if isinstance(saver, AsyncSqliteSaver):
            async with saver.lock:
                for statement in SCRUB:
                    await (await saver.conn.execute(statement)).fetchall()


@asynccontextmanager
async def open_stores(config: AgentConfig, *, rotating: bool = False) -> AsyncIterator[AgentStores]:
    """``rotating``: for ``harness rotate-key``, which seals the plain values the start check refuses."""
    from agent.sealing import sealer_for

    sealer = sealer_for(config, rotating=rotating)
    if config.database_url is None:
        from agent.stores.sqlite import open_sqlite_stores

        async with open_sqlite_stores(config.data_dir, sealer) as stores:
            yield stores
    else:
        from agent.stores.postgres import open_postgres_stores

        async with open_postgres_stores(config.database_url, sealer) as stores:
            yield stores


def is_store_failure(exc: BaseException) -> bool:
    """Whether ``exc`` says a shared store could not be reached (as opposed to a bug)."""
    if isinstance(exc, StoreUnavailable):
        return True
    module = type(exc).__module__
    if module.startswith("psycopg"):
        import psycopg
        from psycopg_pool import PoolTimeout

        return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError | PoolTimeout)
    if module.startswith("redis"):
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        return isinstance(exc, RedisConnectionError | RedisTimeoutError)
    return False
