"""Choosing the run stores: the embedded SQLite log, or the shared Redis log with its cluster."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from api.runs.log.sqlite import SqliteEventLog

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from agent.stores import AgentStores
    from api.runs.cluster.protocol import Cluster
    from api.runs.log.protocols import EventLog
    from api.runs.settings import RunSettings

__all__ = ("check_run_stores_open", "check_stores", "open_run_stores")


@asynccontextmanager
async def open_run_stores(settings: RunSettings, stores: AgentStores) -> AsyncIterator[tuple[EventLog, Cluster | None]]:
    if settings.redis_url is None:
        path = settings.agent.data_dir / "events.sqlite"
        yield SqliteEventLog(path, replay_window=settings.replay_window, sealer=stores.sealer), None
        return
    from api.runs.cluster.stores import open_redis_stores

    async with open_redis_stores(settings, stores) as (log, cluster):
        yield log, cluster


async def check_stores(settings: RunSettings) -> None:
    """Raise ``StoreUnavailable`` with one clear line unless every configured shared store answers."""
    if settings.redis_url is None or settings.agent.database_url is None:
        return
    from agent.stores.postgres import probe
    from api.runs.log.redis_client import connect_redis

    redis = await connect_redis(settings.redis_url)
    await redis.aclose()
    await probe(settings.agent.database_url)


async def check_run_stores_open(settings: RunSettings) -> None:
    """Open every store, the run stores with the agent's, and close them again: a key that does not fit them, or
    plain values where a key is set, raises ``EncryptionKeyError`` before anything is served."""
    from agent.stores import open_stores

    async with open_stores(settings.agent) as stores, open_run_stores(settings, stores) as (log, _):
        await log.open(lambda run_id, seq: None, lambda run_id: None)
        await log.close()
