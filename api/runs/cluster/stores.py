"""Opening the shared run stores: Redis for the event log and the cluster, PostgreSQL for the run archive and
the sessions' owners."""

from __future__ import annotations

import logging
import os
import secrets
import socket
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, cast

from agent.stores.postgres import apply_migrations, migration_lock
from api.runs.cluster.redis import RedisCluster
from api.runs.log.archive import RunArchive
from api.runs.log.redis import RedisEventLog
from api.runs.log.redis_client import connect_redis
from api.runs.log.redis_keys import RunKeys
from api.runs.log.session_owners import SessionOwners

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from typing import Any

    from psycopg import AsyncConnection
    from redis.asyncio import Redis

    from agent.stores import AgentStores
    from api.runs.settings import RunSettings

__all__ = ("instance_name", "open_redis_stores")

_GLOB_SPECIALS = str.maketrans({character: f"\\{character}" for character in "\\*?[]"})
logger = logging.getLogger(__name__)


def instance_name() -> str:
    """How this process is known to the others: host, pid and a random tag (a restart is a new instance)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


@asynccontextmanager
async def open_redis_stores(
    settings: RunSettings, stores: AgentStores
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
        streams_per_subject=settings.streams_per_subject,
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
