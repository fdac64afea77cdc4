"""The shared long-term store: LangGraph's ``AsyncPostgresStore`` on the service's pool (tables ``store`` and
``store_migrations``, made by its ``setup()`` under the service's migration lock)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.store.postgres.aio import AsyncPostgresStore

from agent.stores.graph_store.base import STORE_TTL, GraphStore

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool

    from agent.sealing import Sealer

__all__ = ("postgres_graph_store",)


async def postgres_graph_store(
    pool: AsyncConnectionPool[Any], sealer: Sealer | None = None, *, sweep_interval_s: float = 60.0
) -> GraphStore:
    """The store on ``pool``, its tables made or migrated: call it holding the migration lock
    (``agent.stores.postgres.migration_lock``), so that instances starting together migrate once."""
    backend = AsyncPostgresStore(pool, ttl=STORE_TTL)
    await backend.setup()
    return GraphStore(backend, sealer, sweep=backend.sweep_ttl, sweep_interval_s=sweep_interval_s)
