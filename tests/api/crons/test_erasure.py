"""What goes with a thread and with a subject: the crons (``StoreEraser`` hands them to the cron store)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.crons.base import CronRecord
from api.crons.sqlite import SqliteCronStore
from api.runs.erasure import StoreEraser

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


class _Nothing:
    """The other stores of the eraser, holding nothing."""

    graph_store = None

    def __init__(self) -> None:
        self.interactions = self

    async def erase_sessions(self, session_ids: Sequence[str]) -> None:
        return None

    async def erase(self, **_: Any) -> int:
        return 0

    async def erase_runs(self, runs: Sequence[tuple[str, str]]) -> int:
        return 0

    async def forget_sessions(self, session_ids: Sequence[str]) -> None:
        return None


def _cron(cron_id: str, owner: str, thread_id: str | None) -> CronRecord:
    return CronRecord(
        cron_id=cron_id,
        owner=owner,
        thread_id=thread_id,
        assistant_id="tick",
        schedule="* * * * *",
        next_run_ms=0,
        created_at="2027-01-15T08:00:00+00:00",
        updated_at="2027-01-15T08:00:00+00:00",
    )


async def test_a_forgotten_thread_and_an_erased_subject_take_their_crons(tmp_path: Path) -> None:
    crons = SqliteCronStore(tmp_path / "crons.sqlite")
    for record in (
        _cron("a-thread", "alice", "t1"),
        _cron("a-stateless", "alice", None),
        _cron("b-thread", "bob", "t2"),
        _cron("b-stateless", "bob", None),
    ):
        await crons.put(record)
    nothing: Any = _Nothing()
    eraser = StoreEraser(nothing, nothing, crons)

    await eraser.forget([], ["t1", "t2"])
    assert [c.cron_id for c in await crons.of_owner("alice")] == ["a-stateless"]
    assert [c.cron_id for c in await crons.of_owner("bob")] == ["b-stateless"]
    await eraser.forget_subjects(["alice"])
    assert await crons.of_owner("alice") == []
    assert [c.cron_id for c in await crons.of_owner("bob")] == ["b-stateless"]
    await crons.close()
