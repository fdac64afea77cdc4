"""Webhooks: a run with a ``webhook`` is POSTed, as ``GET /threads/{thread_id}/runs/{run_id}`` shows it, once it
ends, signed, retried, at least once across restarts and lost instances, only to allowed hosts (ADR 46).

One base (``base``: the delivery, the outbox's protocol, the retry schedule) and one file per backend, as Litestar's
``stores/`` are laid out: ``sqlite`` (embedded, ``webhooks.sqlite`` in the data directory) and ``postgres`` (shared,
``SELECT ... FOR UPDATE SKIP LOCKED`` with a lease). ``targets`` says where a delivery may go, ``signing`` signs it
(Standard Webhooks), ``sender`` is the loop every instance runs.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from api.webhooks.base import Delivery, WebhookOutbox, retry_delay
from api.webhooks.errors import WebhookNotAllowed
from api.webhooks.sender import WebhookSender, delivery_body
from api.webhooks.settings import WebhookSettings
from api.webhooks.signing import signature, signing_key, verify, webhook_headers
from api.webhooks.targets import TargetRefused, check_url, webhook_pattern

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from agent.stores import AgentStores

__all__ = (
    "Delivery",
    "TargetRefused",
    "WebhookNotAllowed",
    "WebhookOutbox",
    "WebhookSender",
    "WebhookSettings",
    "check_url",
    "delivery_body",
    "open_webhook_outbox",
    "retry_delay",
    "signature",
    "signing_key",
    "verify",
    "webhook_headers",
    "webhook_pattern",
)


@asynccontextmanager
async def open_webhook_outbox(stores: AgentStores, data_dir: Path) -> AsyncIterator[WebhookOutbox]:
    """PostgreSQL when the stores are shared (migrated at start), else ``webhooks.sqlite`` in ``data_dir``."""
    outbox: WebhookOutbox
    if stores.database is not None:
        from api.webhooks.postgres import PostgresOutbox

        shared = PostgresOutbox(stores.database)
        await shared.migrate()
        outbox = shared
    else:
        from api.webhooks.sqlite import SqliteOutbox

        outbox = SqliteOutbox(data_dir / "webhooks.sqlite")
    try:
        yield outbox
    finally:
        await outbox.close()
