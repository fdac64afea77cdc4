"""Crons: runs started on a schedule, on a thread or on a new thread each time, exactly once per firing however many
instances serve (ADR 47).

One base (``base``: the record, the store's protocol, the claim) and one file per backend, as Litestar's
``stores/`` are laid out: ``sqlite`` (embedded, ``crons.sqlite`` in the data directory) and ``postgres`` (shared,
``SELECT ... FOR UPDATE SKIP LOCKED``). ``schedule`` reads an expression in its time zone, ``book`` is what the
routes do, ``scheduler`` the loop every instance runs.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from api.crons.base import CronRecord, CronStore
from api.crons.book import CronBook, cron_view
from api.crons.errors import CronNotFound, CronRequestInvalid
from api.crons.schedule import Schedule, ScheduleInvalid
from api.crons.scheduler import CRON_FIRING_KEY, CRON_ID_KEY, CronScheduler

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from agent.stores import AgentStores

__all__ = (
    "CRON_FIRING_KEY",
    "CRON_ID_KEY",
    "CronBook",
    "CronNotFound",
    "CronRecord",
    "CronRequestInvalid",
    "CronScheduler",
    "CronStore",
    "Schedule",
    "ScheduleInvalid",
    "cron_view",
    "open_cron_store",
)


@asynccontextmanager
async def open_cron_store(stores: AgentStores, data_dir: Path) -> AsyncIterator[CronStore]:
    """PostgreSQL when the stores are shared (migrated at start), else ``crons.sqlite`` in ``data_dir``."""
    store: CronStore
    if stores.database is not None:
        from api.crons.postgres import PostgresCronStore

        shared = PostgresCronStore(stores.database, stores.sealer)
        await shared.migrate()
        store = shared
    else:
        from api.crons.sqlite import SqliteCronStore

        store = SqliteCronStore(data_dir / "crons.sqlite", stores.sealer)
    try:
        yield store
    finally:
        await store.close()
