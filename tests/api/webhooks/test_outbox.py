"""The outboxes, embedded and shared: a delivery is claimed by one claimer however many claim at once, taken again
by another once the lease of the one that died has run out (and the late one can no longer change it), nudged due
when its run ends but not while a retry waits, and removed by an erasure of its run or its session."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import pytest

from api.webhooks import Delivery
from api.webhooks.sqlite import SqliteOutbox
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from api.webhooks import WebhookOutbox

NOW = 1_800_000_000_000
LEASE = 10_000


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@asynccontextmanager
async def outboxes(backend: str, tmp_path: Path) -> AsyncIterator[tuple[WebhookOutbox, WebhookOutbox]]:
    """Two outboxes on one store (two instances: each its own pool; SQLite has one process, so one outbox twice)."""
    if backend == "sqlite":
        outbox = SqliteOutbox(tmp_path / "webhooks.sqlite")
        try:
            yield outbox, outbox
        finally:
            await outbox.close()
        return
    from agent.stores.postgres import open_pool
    from api.webhooks.postgres import PostgresOutbox

    with fresh_shared_stores() as shared:
        async with open_pool(shared.database_url) as first, open_pool(shared.database_url) as second:
            one = PostgresOutbox(first)
            await one.migrate()
            await PostgresOutbox(second).migrate()  # a second instance's start: nothing to do
            yield one, PostgresOutbox(second)


def delivery(run_id: str, session_id: str = "s-1") -> Delivery:
    return Delivery(run_id=run_id, session_id=session_id, created_ms=NOW)


async def test_concurrent_claims_take_each_delivery_once(backend: str, tmp_path: Path) -> None:
    async with outboxes(backend, tmp_path) as (one, two):
        for index in range(40):
            await one.add(delivery(f"r-{index}"), NOW)
        await one.add(delivery("r-0"), NOW + 5)  # a second add of a run changes nothing

        claims = await asyncio.gather(*(box.claim(NOW, LEASE, f"h{n}", 7) for n, box in enumerate([one, two] * 4)))

        taken = [item.run_id for claim in claims for item in claim]
        assert sorted(taken) == sorted(f"r-{index}" for index in range(40)), "each once, none left out"
        assert await one.claim(NOW + LEASE - 1, LEASE, "h9", 100) == [], "held while the leases run"


async def test_a_lease_run_out_is_taken_again_and_the_late_holder_changes_nothing(backend: str, tmp_path: Path) -> None:
    async with outboxes(backend, tmp_path) as (one, two):
        await one.add(delivery("r-1"), NOW)
        (first,) = await one.claim(NOW, LEASE, "dead", 10)

        (again,) = await two.claim(NOW + LEASE + 1, LEASE, "alive", 10)
        assert again.run_id == first.run_id
        assert not await one.done("r-1", "dead"), "the first holder's lease has gone"
        first.attempts = 3
        await one.later(first, "dead", NOW)
        assert await two.claim(NOW + LEASE + 2, LEASE, "third", 10) == [], "still the second's"
        assert await two.done("r-1", "alive")
        assert await two.claim(NOW + 10 * LEASE, LEASE, "third", 10) == []


async def test_an_end_makes_a_delivery_due_now_but_not_one_waiting_to_retry(backend: str, tmp_path: Path) -> None:
    async with outboxes(backend, tmp_path) as (one, _):
        await one.add(delivery("r-waits"), NOW + 60_000)
        await one.add(delivery("r-retry"), NOW)
        (retrying,) = await one.claim(NOW, LEASE, "h", 10)
        retrying.attempts = 1
        await one.later(retrying, "h", NOW + 60_000)

        await one.make_due(["r-waits", "r-retry", "r-unknown"], NOW)

        (due,) = await one.claim(NOW, LEASE, "h", 10)
        assert (due.run_id, due.attempts) == ("r-waits", 0)
        assert await one.done("r-waits", "h")
        (later,) = await one.claim(NOW + 60_000, LEASE, "h", 10)
        assert (later.run_id, later.attempts) == ("r-retry", 1)


async def test_a_stopping_holder_puts_its_deliveries_back(backend: str, tmp_path: Path) -> None:
    async with outboxes(backend, tmp_path) as (one, two):
        await one.add(delivery("r-1"), NOW)
        await one.claim(NOW, LEASE, "stopping", 10)

        await one.release("stopping")

        assert [item.run_id for item in await two.claim(NOW, LEASE, "other", 10)] == ["r-1"]


async def test_an_erasure_removes_the_deliveries_of_its_runs_and_sessions(backend: str, tmp_path: Path) -> None:
    async with outboxes(backend, tmp_path) as (one, _):
        for run_id, session_id in [("r-1", "s-a"), ("r-2", "s-a"), ("r-3", "s-b"), ("r-4", "s-c")]:
            await one.add(delivery(run_id, session_id), NOW)

        assert await one.forget(["r-3"], ["s-a"]) == 3

        assert [item.run_id for item in await one.claim(NOW, LEASE, "h", 10)] == ["r-4"]
