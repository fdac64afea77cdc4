"""The shared stores on PostgreSQL: one connection pool, migrations that run at start, LangGraph's saver.

Migrations run under an advisory lock, so instances starting at the same moment apply each one exactly
once. The lock is taken with ``pg_try_advisory_lock`` in a loop rather than a blocking
``pg_advisory_lock``: LangGraph's own migrations build indexes ``CONCURRENTLY``, which waits for every
open snapshot, and an instance blocked inside ``pg_advisory_lock`` would hold one and deadlock.
"""

from __future__ import annotations

import asyncio
import select
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import psycopg
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from agent.config import redact_url
from agent.encryption import checkpoint_serde
from agent.stores import AgentStores, StoreUnavailable
from agent.stores.graph_store.postgres import postgres_graph_store
from agent.stores.key_check import check_key
from agent.stores.pg_interactions import PostgresInteractionLog
from agent.stores.pg_key_check import KEY_CHECK_MIGRATIONS, PostgresKeyCheck
from agent.stores.pg_ledger import LEDGER_MIGRATIONS, PostgresLedger

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.sealing import Sealer

__all__ = (
    "apply_migrations",
    "check_unless_quiet",
    "migration_lock",
    "open_pool",
    "open_postgres_stores",
    "ping",
    "probe",
)

_MIGRATION_LOCK = 0x6861726E657373  # "harness"
_LOCK_POLL_S = 0.05
_CONNECT_TIMEOUT_S = 5


@asynccontextmanager
async def open_pool(url: str) -> AsyncIterator[AsyncConnectionPool[Any]]:
    """A pool on ``url``; fails at once with ``StoreUnavailable`` when the server cannot be reached."""
    await probe(url)
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        url,
        min_size=2,
        max_size=16,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        check=check_unless_quiet,
        timeout=5,
        name="harness",
        open=False,
    )
    await pool.open(wait=True, timeout=_CONNECT_TIMEOUT_S)
    try:
        yield pool
    finally:
        await pool.close()


async def check_unless_quiet(connection: psycopg.AsyncConnection[Any]) -> None:
    """The pool's check of a connection it hands out: a round trip only when its socket has something to read.

    An idle connection of this service (autocommit, no ``LISTEN``) has nothing to read unless the server closed it
    (a restart, a proxy that cut it) or said something unasked; then the pool's own check runs (``SELECT`` of
    nothing) and a dead one is replaced before a turn uses it. A quiet socket is as its last query left it, so
    the turn does not pay a round trip to PostgreSQL for every connection it takes (a turn takes several).
    """
    if connection.closed or connection.broken or _stirred(connection.fileno()):
        await AsyncConnectionPool.check_connection(connection)


def _stirred(fd: int) -> bool:
    """Whether the socket has something to read, or has hung up or failed (``poll``: any descriptor number, where
    ``select`` refuses those past 1023, which an instance holding thousands of streams hands its new connections)."""
    waiting = select.poll()
    waiting.register(fd, select.POLLIN | select.POLLPRI)
    return bool(waiting.poll(0))


async def ping(pool: AsyncConnectionPool[Any], timeout_s: float = 1.0) -> None:
    """Raise unless the database answers within ``timeout_s``."""
    async with pool.connection(timeout=timeout_s) as connection:
        await connection.execute("SELECT 1")


@asynccontextmanager
async def migration_lock(pool: AsyncConnectionPool[Any]) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """Hold the service's migration lock; yields the connection that holds it."""
    async with pool.connection() as connection:
        while True:
            row = await (
                await connection.execute("SELECT pg_try_advisory_lock(%s) AS taken", (_MIGRATION_LOCK,))
            ).fetchone()
            if row and row["taken"]:
                break
            await asyncio.sleep(_LOCK_POLL_S)
        try:
            await connection.execute(
                "CREATE TABLE IF NOT EXISTS harness_migrations ("
                " component TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (component, version))"
            )
            yield connection
        finally:
            await connection.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))


async def apply_migrations(connection: psycopg.AsyncConnection[Any], component: str, statements: Sequence[str]) -> None:
    """Apply ``component``'s statements not applied yet, each in its own transaction, in order."""
    row = await (
        await connection.execute(
            "SELECT COALESCE(MAX(version), -1) AS done FROM harness_migrations WHERE component = %s", (component,)
        )
    ).fetchone()
    done = row["done"] if row else -1
    for version in range(done + 1, len(statements)):
        async with connection.transaction():
            await connection.execute(statements[version])
            await connection.execute(
                "INSERT INTO harness_migrations (component, version) VALUES (%s, %s)", (component, version)
            )


@asynccontextmanager
async def open_postgres_stores(url: str, sealer: Sealer | None = None) -> AsyncIterator[AgentStores]:
    """The stores on ``url``; with ``sealer``, what they hold is sealed (and the key checked first)."""
    async with open_pool(url) as pool:
        saver = AsyncPostgresSaver(pool, serde=checkpoint_serde(sealer))
        async with migration_lock(pool) as connection:
            await apply_migrations(
                connection,
                "agent",
                LEDGER_MIGRATIONS
                + PostgresInteractionLog.MIGRATIONS
                + KEY_CHECK_MIGRATIONS
                + PostgresInteractionLog.INDEX_MIGRATIONS
                + PostgresInteractionLog.FEEDBACK_MIGRATIONS,
            )
            await saver.setup()
            graph_store = await postgres_graph_store(pool, sealer)
            await check_key(PostgresKeyCheck(connection, redact_url(url)), sealer)
        ledger = PostgresLedger(pool)
        await ledger.seed()
        interactions = PostgresInteractionLog(pool, sealer)
        async with graph_store.sweeping():
            yield AgentStores(
                checkpointer=saver,
                ledger=ledger,
                interactions=interactions,
                database=pool,
                sealer=sealer,
                graph_store=graph_store,
            )


async def probe(url: str) -> None:
    """Raise ``StoreUnavailable`` (naming the URL, without its password) unless ``url`` accepts a connection."""
    try:
        connection = await psycopg.AsyncConnection.connect(url, connect_timeout=_CONNECT_TIMEOUT_S)
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise StoreUnavailable(f"cannot connect to PostgreSQL at {redact_url(url)}: {reason}") from None
    await connection.close()
