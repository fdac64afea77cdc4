"""Where the agent keeps what it must not lose: checkpoints, the interaction log and the ledger.

Embedded SQLite files in the data directory by default; PostgreSQL when ``HARNESS_DATABASE_URL`` is set,
so that any number of instances share them.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from langgraph.checkpoint.base import BaseCheckpointSaver

    from agent.actions.ledger import Ledger
    from agent.config import AgentConfig
    from agent.interactions import InteractionLog

__all__ = ("AgentStores", "StoreUnavailable", "check_stores_open", "is_store_failure", "open_stores")


class StoreUnavailable(RuntimeError):
    """A shared store cannot be reached; the message names it (without its password) and what failed."""


@dataclass(frozen=True, slots=True)
class AgentStores:
    checkpointer: BaseCheckpointSaver[Any]
    ledger: Ledger
    interactions: InteractionLog
    database: Any = None
    """The PostgreSQL connection pool (``psycopg_pool.AsyncConnectionPool``) when the stores are shared."""

    async def erase_sessions(self, session_ids: Sequence[str]) -> None:
        """Remove the sessions' checkpoints: a session is a LangGraph thread."""
        for session_id in session_ids:
            await self.checkpointer.adelete_thread(session_id)

    async def compact(self) -> None:
        """Leave nothing removed in the stores' files (``agent.stores.scrub``); PostgreSQL reclaims its own."""
        await self.interactions.compact()
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        from agent.stores.scrub import SCRUB

        saver = self.checkpointer
        if isinstance(saver, AsyncSqliteSaver):
            async with saver.lock:
                for statement in SCRUB:
                    await (await saver.conn.execute(statement)).fetchall()


@asynccontextmanager
async def open_stores(config: AgentConfig) -> AsyncIterator[AgentStores]:
    if config.database_url is None:
        from agent.stores.sqlite import open_sqlite_stores

        async with open_sqlite_stores(config.data_dir, config.encryption_key) as stores:
            yield stores
    else:
        from agent.stores.postgres import open_postgres_stores

        async with open_postgres_stores(config.database_url, config.encryption_key) as stores:
            yield stores


async def check_stores_open(config: AgentConfig) -> None:
    """Open the stores and close them again: raises what opening them raises (``StoreUnavailable``, an
    ``EncryptionKeyError`` for a key that does not fit the checkpoints), before anything is served."""
    async with open_stores(config):
        pass


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
