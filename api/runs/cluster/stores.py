"""Opening the shared run stores: Redis for the event log and the cluster, PostgreSQL for the run archive and
the sessions' owners."""

from __future__ import annotations

import logging
import os
import secrets
import socket
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, cast

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from agent.config import redact_url
from agent.stores import StoreUnavailable
from agent.stores.postgres import apply_migrations, migration_lock
from api.runs.cluster.redis import RedisCluster
from api.runs.log.archive import RunArchive
from api.runs.log.redis import RedisEventLog, RunKeys
from api.runs.log.session_owners import SessionOwners

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from typing import Any

    from psycopg import AsyncConnection

    from agent.stores import AgentStores
    from api.settings import Settings

__all__ = ("connect_redis", "instance_name", "open_redis_stores")

_CONNECT_TIMEOUT_S = 5
_COMMAND_TIMEOUT_S = 10
_MAX_CONNECTIONS = 64
_GLOB_SPECIALS = str.maketrans({character: f"\\{character}" for character in "\\*?[]"})
logger = logging.getLogger(__name__)


def instance_name() -> str:
    """How this process is known to the others: host, pid and a random tag (a restart is a new instance)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


async def connect_redis(url: str, *, single_connection: bool = False) -> Redis:
    """A client on ``url``; fails at once with ``StoreUnavailable`` when the server cannot be reached."""
    # a bounded pool that makes a burst of commands wait for a connection rather than fail
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=1 if single_connection else _MAX_CONNECTIONS,
        timeout=_COMMAND_TIMEOUT_S,
        socket_connect_timeout=_CONNECT_TIMEOUT_S,
        socket_timeout=_COMMAND_TIMEOUT_S,
        health_check_interval=15,
    )
    redis = Redis(connection_pool=pool, single_connection_client=single_connection)
    redis.auto_close_connection_pool = True  # the client owns its pool: closing one closes the other
    try:
        await redis.ping()
    except (RedisError, OSError) as exc:
        await redis.aclose()
        raise StoreUnavailable(f"cannot connect to Redis at {redact_url(url)}: {exc}") from None
    return redis


@asynccontextmanager
async def open_redis_stores(
    settings: Settings, stores: AgentStores
) -> AsyncIterator[tuple[RedisEventLog, RedisCluster]]:
    assert settings.redis_url is not None, "the shared stores need Redis"
    database = stores.database
    assert database is not None, "the settings check that both shared stores are configured"
    redis = await connect_redis(settings.redis_url)
    keys = RunKeys(settings.redis_prefix)
    archive = RunArchive(database, stores.sealer)
    try:
        async with migration_lock(database) as connection:
            await apply_migrations(connection, "runs", RunArchive.MIGRATIONS)
            await apply_migrations(connection, "sessions", SessionOwners.MIGRATIONS)
            await _backfill_owners(connection, redis, keys, archive)
        blocking = await connect_redis(settings.redis_url, single_connection=True)
    except BaseException:
        await redis.aclose()
        raise
    instance = instance_name()
    log = RedisEventLog(
        redis,
        archive,
        SessionOwners(database),
        keys=keys,
        instance=instance,
        lease_s=settings.run_lease_s,
        replay_window=settings.replay_window,
        sealer=stores.sealer,
    )
    cluster = RedisCluster(
        redis,
        blocking,
        database,
        log,
        keys=keys,
        instance=instance,
        lease_s=settings.run_lease_s,
        streams_per_subject=settings.auth.streams_per_subject,
    )
    try:
        yield log, cluster
    finally:
        await blocking.aclose()
        await redis.aclose()


async def _backfill_owners(connection: AsyncConnection[Any], redis: Redis, keys: RunKeys, archive: RunArchive) -> None:
    """Give PostgreSQL the owners sessions had before it kept them, once: Redis's owner keys (which decided until
    then), and, for sessions Redis no longer knows, the archived runs' records."""
    if await SessionOwners.backfilled(connection):
        return
    owners = await archive.session_creators()
    pattern = f"{keys.prefix.translate(_GLOB_SPECIALS)}:session:*:owner"
    async for key in redis.scan_iter(match=pattern, count=1000):
        owner = cast("bytes | None", await redis.get(key))
        if owner is not None:
            owners[keys.session_of_owner(key)] = owner.decode() or None
    await SessionOwners.backfill(connection, owners)
    if owners:
        logger.info("recorded the owners of %d sessions from before PostgreSQL kept them", len(owners))
