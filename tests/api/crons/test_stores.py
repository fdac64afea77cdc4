"""The cron stores, embedded and shared: a firing is claimed by one claimer however many claim at once, a firing in
flight whose claimer died is taken again once its lease has run out (marked ``retaken``), missed firings are one
catch-up firing, and a thread's or a subject's crons go with it."""

from __future__ import annotations

import asyncio
import os
import threading
from collections import Counter
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import pytest

from agent import Sealer
from agent.encryption import EncryptionKey
from api.crons.base import CronRecord
from api.crons.book import next_firing
from api.crons.sqlite import SqliteCronStore
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from api.crons.base import CronStore

MINUTE_MS = 60_000
NOW_MS = 1_800_000_000_000  # a whole minute
LEASE_MS = 10_000


@asynccontextmanager
async def _postgres_stores(count: int) -> AsyncIterator[list[CronStore]]:
    """``count`` stores on one fresh schema, each on its own pool (as instances are)."""
    from agent.stores.postgres import open_pool
    from api.crons.postgres import PostgresCronStore

    with fresh_shared_stores() as shared:
        async with open_pool(shared.database_url) as first:
            stores: list[CronStore] = []
            first_store = PostgresCronStore(first)
            await first_store.migrate()
            stores.append(first_store)
            if count == 1:
                yield stores
                return
            async with open_pool(shared.database_url) as second:
                stores.append(PostgresCronStore(second))
                yield stores


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@asynccontextmanager
async def _store(backend: str, tmp_path: Path) -> AsyncIterator[CronStore]:
    if backend == "sqlite":
        store = SqliteCronStore(tmp_path / "crons.sqlite", Sealer(EncryptionKey(os.urandom(32))))
        try:
            yield store
        finally:
            await store.close()
        return
    async with _postgres_stores(1) as stores:
        yield stores[0]


def _cron(
    cron_id: str, *, owner: str | None = "alice", thread_id: str | None = None, due_ms: int = NOW_MS
) -> CronRecord:
    return CronRecord(
        cron_id=cron_id,
        owner=owner,
        thread_id=thread_id,
        assistant_id="echo",
        schedule="* * * * *",
        payload={"assistant_id": "echo", "input": {"n": 1}},
        next_run_ms=due_ms,
        created_at="2027-01-15T08:00:00+00:00",
        updated_at="2027-01-15T08:00:00+00:00",
    )


async def test_a_claim_takes_a_due_firing_once_and_moves_the_cron_on(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        await store.put(_cron("c1"))
        await store.put(_cron("c2", due_ms=NOW_MS + MINUTE_MS))
        claimed = await store.claim_due(NOW_MS, LEASE_MS, next_firing, 10)
        assert [(c.cron_id, c.firing_ms, c.next_run_ms, c.retaken) for c in claimed] == [
            ("c1", NOW_MS, NOW_MS + MINUTE_MS, False)
        ]
        assert claimed[0].payload == {"assistant_id": "echo", "input": {"n": 1}}
        assert await store.claim_due(NOW_MS + 1, LEASE_MS, next_firing, 10) == []  # in flight, lease not out
        await store.fired("c1", NOW_MS)
        stored = await store.get("c1")
        assert stored is not None
        assert (stored.firing_ms, stored.next_run_ms) == (None, NOW_MS + MINUTE_MS)


async def test_a_change_that_does_not_reschedule_keeps_what_a_claim_moved_on(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        await store.put(_cron("c1"))
        read_before_the_claim = await store.get("c1")  # a PATCH of its input reads it ...
        await store.claim_due(NOW_MS, LEASE_MS, next_firing, 10)  # ... the scheduler fires it meanwhile ...
        assert read_before_the_claim is not None
        read_before_the_claim.payload = {"assistant_id": "echo", "input": {"n": 2}}
        await store.put(read_before_the_claim, reschedule=False)  # ... and the PATCH writes it back
        stored = await store.get("c1")
        assert stored is not None
        assert (stored.next_run_ms, stored.firing_ms) == (NOW_MS + MINUTE_MS, NOW_MS), "the firing is not due again"
        assert stored.payload["input"] == {"n": 2}
        assert await store.claim_due(NOW_MS + 1, LEASE_MS * 10, next_firing, 10) == []


async def test_missed_firings_are_one_catch_up_firing_not_a_burst(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        await store.put(_cron("c1", due_ms=NOW_MS - 60 * MINUTE_MS))  # an hour of minutes missed
        claimed = await store.claim_due(NOW_MS + 1, LEASE_MS, next_firing, 10)
        assert [(c.firing_ms, c.next_run_ms) for c in claimed] == [(NOW_MS - 60 * MINUTE_MS, NOW_MS + MINUTE_MS)]
        await store.fired("c1", NOW_MS - 60 * MINUTE_MS)
        assert await store.claim_due(NOW_MS + 2, LEASE_MS, next_firing, 10) == []


async def test_a_firing_whose_claimer_died_is_taken_again_after_its_lease(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        await store.put(_cron("c1"))
        await store.claim_due(NOW_MS, LEASE_MS, next_firing, 10)  # ... and the claimer dies
        assert await store.claim_due(NOW_MS + LEASE_MS - 1, LEASE_MS, next_firing, 10) == []
        again = await store.claim_due(NOW_MS + LEASE_MS + 1, LEASE_MS, next_firing, 10)
        assert [(c.firing_ms, c.next_run_ms, c.retaken) for c in again] == [(NOW_MS, NOW_MS + MINUTE_MS, True)]


async def test_disabled_and_ended_crons_are_not_due(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        disabled = _cron("off")
        disabled.enabled = False
        ended = _cron("ended")
        ended.next_run_ms = None
        await store.put(disabled)
        await store.put(ended)
        assert await store.claim_due(NOW_MS + MINUTE_MS, LEASE_MS, next_firing, 10) == []
        ended.end_time_ms = NOW_MS + 30_000  # its next firing would be past its end
        ended.next_run_ms = NOW_MS
        await store.put(ended)
        claimed = await store.claim_due(NOW_MS, LEASE_MS, next_firing, 10)
        assert [(c.cron_id, c.next_run_ms) for c in claimed] == [("ended", None)]


async def test_a_threads_and_a_subjects_crons_are_forgotten(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        await store.put(_cron("t1", thread_id="thread-a"))
        await store.put(_cron("t2", thread_id="thread-b"))
        await store.put(_cron("b1", owner="bob"))
        await store.put(_cron("anon", owner=None))
        assert await store.forget_threads(["thread-a"]) == 1
        assert {c.cron_id for c in await store.of_owner("alice")} == {"t2"}
        assert await store.forget_owners(["alice"]) == 1
        assert await store.of_owner("alice") == []
        assert [c.cron_id for c in await store.of_owner("bob")] == ["b1"]
        assert [c.cron_id for c in await store.of_owner(None)] == ["anon"]
        assert await store.delete("b1") is True
        assert await store.delete("b1") is False


_LONG_LEASE_MS = 60 * MINUTE_MS
"""Longer than the claimers' rounds: no firing in flight is taken back. The claimers go round by round together: one
a round ahead would claim a firing the other has not, as one catch-up firing for the rounds between (by design)."""


def _count_firings(claims: list[list[CronRecord]]) -> Counter[tuple[str, int]]:
    return Counter((c.cron_id, c.firing_ms or 0) for batch in claims for c in batch)


async def test_two_postgres_claimers_never_take_one_firing() -> None:
    """Two instances' pools claim the same due crons at once, round after round: each firing is taken once."""
    async with _postgres_stores(2) as stores:
        for index in range(40):
            await stores[0].put(_cron(f"c{index:02d}"))
        claims: list[list[CronRecord]] = []
        rounds = asyncio.Barrier(2)

        async def claimer(store: CronStore) -> None:
            for step in range(6):  # each round, every cron is due again (its next firing a minute on)
                now = NOW_MS + step * MINUTE_MS
                while batch := await store.claim_due(now, _LONG_LEASE_MS, next_firing, 7):
                    claims.append(batch)
                    for claimed in batch:
                        await store.fired(claimed.cron_id, claimed.firing_ms or 0)
                await rounds.wait()

        await asyncio.gather(claimer(stores[0]), claimer(stores[1]))
        firings = _count_firings(claims)
        assert max(firings.values()) == 1
        assert len(firings) == 40 * 6
        assert len({id(store) for store in stores}) == 2


def test_two_sqlite_claimers_never_take_one_firing(tmp_path: Path) -> None:
    """Two connections to the embedded file, on two threads, claiming at once: each firing is taken once."""
    path = tmp_path / "crons.sqlite"
    setup = SqliteCronStore(path)
    for index in range(40):
        asyncio.run(setup.put(_cron(f"c{index:02d}")))
    claims: list[list[CronRecord]] = []
    rounds = threading.Barrier(2)

    def claimer() -> None:
        store = SqliteCronStore(path)
        for step in range(6):
            rounds.wait()
            now = NOW_MS + step * MINUTE_MS
            while batch := asyncio.run(store.claim_due(now, _LONG_LEASE_MS, next_firing, 7)):
                claims.append(batch)
                for claimed in batch:
                    asyncio.run(store.fired(claimed.cron_id, claimed.firing_ms or 0))
        asyncio.run(store.close())

    threads = [threading.Thread(target=claimer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    asyncio.run(setup.close())
    firings = _count_firings(claims)
    assert max(firings.values()) == 1
    assert len(firings) == 40 * 6


async def test_a_renewed_claim_is_not_taken_again_until_its_new_lease_runs_out(backend: str, tmp_path: Path) -> None:
    async with _store(backend, tmp_path) as store:
        await store.put(_cron("c1"))
        await store.claim_due(NOW_MS, LEASE_MS, next_firing, 10)
        await store.renew("c1", NOW_MS, NOW_MS + 3 * LEASE_MS)  # its run is still starting
        assert await store.claim_due(NOW_MS + 2 * LEASE_MS, LEASE_MS, next_firing, 10) == []
        await store.renew("c1", NOW_MS - MINUTE_MS, NOW_MS + 9 * LEASE_MS)  # another firing's: not this mark's
        again = await store.claim_due(NOW_MS + 3 * LEASE_MS + 1, LEASE_MS, next_firing, 10)
        assert [(c.firing_ms, c.retaken) for c in again] == [(NOW_MS, True)]
