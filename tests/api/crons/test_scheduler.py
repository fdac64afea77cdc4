"""The scheduler: a firing is claimed just before its run starts and its lease is renewed while the run starts (so
no other instance takes it again meanwhile and starts a second run), and a cron's runs are started as its maker,
with the user langgraph.json's auth said it was."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from agent.graphs import GraphRegistry, RegisteredGraph
from api.crons import scheduler as scheduler_module
from api.crons.base import CronRecord
from api.crons.book import next_firing
from api.crons.scheduler import CronScheduler
from api.crons.sqlite import SqliteCronStore

if TYPE_CHECKING:
    from pathlib import Path

    from api.auth import Principal

NOW_MS = 1_800_000_000_000
LEASE_S = 0.06


class _Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now_ms = NOW_MS

    def now_ns(self) -> int:
        return self.now_ms * 1_000_000


class _State(TypedDict):
    n: int


def _graphs() -> GraphRegistry:
    builder = StateGraph(_State)
    builder.add_node("tick", lambda state: {"n": state["n"]})
    builder.add_edge(START, "tick")
    return GraphRegistry([RegisteredGraph("tick", builder.compile())])


def _cron(cron_id: str, *, auth_user: dict[str, Any] | None = None) -> CronRecord:
    return CronRecord(
        cron_id=cron_id,
        owner="alice",
        auth_user=auth_user,
        thread_id=f"thread-{cron_id}",
        assistant_id="tick",
        schedule="* * * * *",
        payload={"assistant_id": "tick", "input": {"n": 1}},
        next_run_ms=NOW_MS,
        created_at="2027-01-15T08:00:00+00:00",
        updated_at="2027-01-15T08:00:00+00:00",
    )


def _scheduler(store: SqliteCronStore, clock: _Clock) -> CronScheduler:
    runs: Any = SimpleNamespace(graphs=_graphs(), threads=None)
    erasure: Any = None
    return CronScheduler(store, runs, erasure, clock=clock, tick_s=1, lease_s=LEASE_S)


async def test_each_firing_is_claimed_when_its_run_starts_not_a_batch_ahead(tmp_path: Path) -> None:
    store = SqliteCronStore(tmp_path / "crons.sqlite")
    clock = _Clock()
    for cron_id in ("c1", "c2", "c3"):
        await store.put(_cron(cron_id))
    scheduler = _scheduler(store, clock)
    leased: list[tuple[str, bool]] = []

    async def slow_start(record: CronRecord, firing_ms: int) -> str:
        """A start that takes three leases (ending a busy run for ``interrupt``)."""
        stored = await store.get(record.cron_id)
        assert stored is not None
        assert stored.claimed_until_ms is not None
        leased.append((record.cron_id, stored.claimed_until_ms > clock.now_ms))
        clock.now_ms += 3 * int(LEASE_S * 1000)
        return "started"

    scheduler._fire = slow_start  # type: ignore[method-assign]
    assert await scheduler.tick() == 3
    await store.close()

    assert leased == [("c1", True), ("c2", True), ("c3", True)], "no firing waited out its lease before its start"


async def test_a_start_slower_than_the_lease_keeps_its_claim(tmp_path: Path) -> None:
    store = SqliteCronStore(tmp_path / "crons.sqlite")
    clock = _Clock()
    await store.put(_cron("c1"))
    scheduler = _scheduler(store, clock)
    taken_by_another: list[list[CronRecord]] = []

    async def slow_start(record: CronRecord, firing_ms: int) -> str:
        clock.now_ms += 2 * int(LEASE_S * 1000)  # the claim's first lease has run out meanwhile
        async with asyncio.timeout(5):  # the scheduler renews it (every third of the lease, on its loop)
            while (((await store.get("c1")) or record).claimed_until_ms or 0) <= clock.now_ms:
                await asyncio.sleep(LEASE_S / 3)
        taken_by_another.append(await store.claim_due(clock.now_ms, 10_000, next_firing, 10))
        return "started"

    scheduler._fire = slow_start  # type: ignore[method-assign]
    assert await scheduler.tick() == 1
    after = await store.get("c1")
    await store.close()

    assert taken_by_another == [[]], "another instance does not take the firing again while its run starts"
    assert after is not None
    assert (after.firing_ms, after.claimed_until_ms) == (None, None)


async def test_a_crons_runs_are_started_as_its_maker_with_its_auth_user(tmp_path: Path, monkeypatch: Any) -> None:
    store = SqliteCronStore(tmp_path / "crons.sqlite")
    user = {"identity": "alice", "permissions": ["user"], "team": "red"}
    await store.put(_cron("c1", auth_user=user))
    started: list[Principal] = []

    async def run_on_thread(*args: Any, principal: Principal, **kwargs: Any) -> Any:
        started.append(principal)
        return SimpleNamespace(run_id="r_0001", record=SimpleNamespace(snapshot=SimpleNamespace(status="running")))

    monkeypatch.setattr(scheduler_module, "run_on_thread", run_on_thread)
    assert await _scheduler(store, _Clock()).tick() == 1
    await store.close()

    assert [(p.subject, p.user) for p in started] == [("alice", user)]
