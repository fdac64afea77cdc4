"""What the cron routes do (``CronBook``): an end time is refused (422) unless it can be shown, a cron stored with one
that cannot is shown anyway, a change that would leave a cron outside the request's auth filter is refused (403)
rather than hiding it from its owner while it fires on, and a cron keeps the auth user of its maker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
import pytest
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from agent.clock import SequentialIds
from agent.graphs import GraphRegistry, RegisteredGraph
from api.auth import Principal
from api.crons import CronBook, CronRequestInvalid, cron_view
from api.crons.sqlite import SqliteCronStore
from api.exceptions import AccessDenied
from contracts.crons import CronCreate, CronSearch, CronUpdate

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

NOW_NS = 1_800_000_000_000 * 1_000_000
USER = {"identity": "alice", "permissions": ["user"], "team": "red"}
ALICE = Principal(subject="alice", user=USER)


class _Clock:
    def now_ns(self) -> int:
        return NOW_NS


class _State(TypedDict):
    n: int


@pytest.fixture
async def book(tmp_path: Path) -> AsyncIterator[CronBook]:
    builder = StateGraph(_State)
    builder.add_node("tick", lambda state: {"n": state["n"]})
    builder.add_edge(START, "tick")
    store = SqliteCronStore(tmp_path / "crons.sqlite")
    yield CronBook(
        store, GraphRegistry([RegisteredGraph("tick", builder.compile())]), clock=_Clock(), ids=SequentialIds()
    )
    await store.close()


def _create(**given: Any) -> CronCreate:
    return msgspec.convert({"assistant_id": "tick", "schedule": "0 0 1 1 *", **given}, CronCreate)


class _NoThreads:
    """A cron without a thread looks none up, and no handler stamps what its firings' threads get."""

    stamped: ClassVar[dict[str, Any]] = {}


_NO_THREADS: Any = _NoThreads()


@pytest.mark.parametrize("end_time", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
async def test_an_end_time_outside_the_years_shown_is_refused_before_the_cron_is_saved(
    book: CronBook, end_time: str
) -> None:
    with pytest.raises(CronRequestInvalid) as refused:
        await book.create(_create(end_time=end_time), ALICE, None, _NO_THREADS)
    made = await book.create(_create(), ALICE, None, _NO_THREADS)
    with pytest.raises(CronRequestInvalid) as refused_change:
        await book.update(made.cron_id, msgspec.convert({"end_time": end_time}, CronUpdate), ALICE)

    assert refused.value.status_code == 422
    assert set(refused.value.fields) == {"end_time"}
    assert set(refused_change.value.fields) == {"end_time"}
    assert [record.cron_id for record in await book.store.of_owner("alice")] == [made.cron_id]
    last = await book.create(_create(end_time="9999-12-31T23:59:59+00:00"), ALICE, None, _NO_THREADS)
    assert cron_view(last).end_time == "9999-12-31T23:59:59+00:00"


async def test_a_cron_stored_with_an_end_time_outside_the_years_shown_is_shown(book: CronBook) -> None:
    made = await book.create(_create(), ALICE, None, _NO_THREADS)
    made.end_time_ms = 253_402_351_199_000  # 9999-12-31T23:59:59-14:00, stored before the end time was checked
    await book.store.put(made)

    found = await book.search(CronSearch(), ALICE)

    assert [cron_view(record).end_time for record in found] == ["9999-12-31T23:59:59+00:00"]


async def test_a_change_that_would_leave_the_cron_outside_the_auth_filter_is_refused(book: CronBook) -> None:
    stamped = {"owner": "alice", "visibility": "shown"}
    made = await book.narrowed({"owner": "alice"}, stamped).create(_create(), ALICE, None, _NO_THREADS)
    updating = book.narrowed({"owner": "alice"})

    with pytest.raises(AccessDenied):
        await updating.update(made.cron_id, msgspec.convert({"metadata": {}}, CronUpdate), ALICE)
    kept = await updating.get(made.cron_id, ALICE)
    changed = await updating.update(
        made.cron_id, msgspec.convert({"metadata": {"owner": "alice", "topic": "x"}}, CronUpdate), ALICE
    )

    assert kept.metadata == stamped, "the refused change changed nothing"
    assert changed.metadata == {"owner": "alice", "topic": "x"}


async def test_a_cron_keeps_its_makers_auth_user(book: CronBook) -> None:
    made = await book.create(_create(), ALICE, None, _NO_THREADS)
    stored = await book.store.get(made.cron_id)

    assert stored is not None
    assert stored.auth_user == USER
