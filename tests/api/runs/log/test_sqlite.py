"""The embedded event log's storage: a batch of a run's events is one row, read back event by event."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TYPE_CHECKING

import pytest

from api.runs.log.records import StoredEvent
from api.runs.log.sqlite import SqliteEventLog
from tests.support.run_records import run_record

if TYPE_CHECKING:
    from pathlib import Path

    from api.runs.log.records import RunRecord

RUN_ID = "r_batches"


def event(seq: int) -> StoredEvent:
    kind = "graph_topology" if seq == 1 else "token_delta"
    return StoredEvent(seq, kind, b'{"type":"%s","seq":%d}' % (kind.encode(), seq))


def as_frame(stored: StoredEvent) -> StoredEvent:
    """The event as versions before envelopes stored it: its whole SSE frame."""
    frame = b"id: %s:%d\nevent: %s\ndata: %s\n\n" % (RUN_ID.encode(), stored.seq, stored.type.encode(), stored.envelope)
    return StoredEvent(stored.seq, stored.type, frame)


def record(last_seq: int) -> RunRecord:
    return run_record(RUN_ID, "s_batches", last_seq=last_seq)


async def opened(path: Path, window: int) -> SqliteEventLog:
    log = SqliteEventLog(path, replay_window=window)
    await log.open(lambda run_id, seq: None, lambda run_id: None)
    return log


@pytest.mark.parametrize(
    "batches",
    [
        pytest.param(((1, 2, 3, 4), (5, 6, 7), (8, 9, 10, 11)), id="the trim point inside a batch"),
        pytest.param(tuple((seq,) for seq in range(1, 12)), id="one event per batch"),
    ],
)
async def test_a_trim_keeps_the_topology_and_exactly_the_window(
    tmp_path: Path, batches: tuple[tuple[int, ...], ...]
) -> None:
    log = await opened(tmp_path / "events.sqlite", window=4)
    try:
        for batch in batches:
            for seq in batch:
                log.append(RUN_ID, event(seq), record(seq) if seq == batch[-1] else None)
            await log.flush()
        everything, trimmed_through = await log.read(RUN_ID, 0)
        after_eight, _ = await log.read(RUN_ID, 8)
        loaded = await log.load_run(RUN_ID)
        removed = await log.erase_runs([(RUN_ID, "s_batches")])
        gone, _ = await log.read(RUN_ID, 0)
    finally:
        await log.close()

    assert [e.seq for e in everything] == [1, 8, 9, 10, 11]
    assert everything == [event(seq) for seq in (1, 8, 9, 10, 11)]
    assert trimmed_through == 7
    assert [e.seq for e in after_eight] == [9, 10, 11]
    assert loaded is not None
    assert loaded.snapshot.last_seq == 11
    assert removed == 5
    assert gone == []


OLD_EVENTS = """
CREATE TABLE events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, frame BLOB NOT NULL, PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
"""
"""The events table of versions that stored one row per event."""


async def test_a_data_directory_with_one_row_per_event_replays_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    stored = [event(seq) for seq in (1, 5, 6, 7)]  # trimmed through 4 by the version that wrote it
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript(OLD_EVENTS)
        db.executemany(
            "INSERT INTO events VALUES (?, ?, ?, ?)", [(RUN_ID, e.seq, e.type, as_frame(e).envelope) for e in stored]
        )
        db.commit()

    log = await opened(path, window=10)
    try:
        replayed, _ = await log.read(RUN_ID, 0)
        tail, _ = await log.read(RUN_ID, 5)
    finally:
        await log.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    assert replayed == stored
    assert [e.seq for e in tail] == [6, 7]
    assert "events" not in tables


async def test_batches_of_frames_written_before_the_log_held_envelopes_replay_as_envelopes(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    log = await opened(path, window=100)
    for seq in (1, 2, 3):  # the previous version's batch: SSE frames
        log.append(RUN_ID, as_frame(event(seq)), record(seq) if seq == 3 else None)
    await log.flush()
    for seq in (4, 5):  # this version's, after a restart
        log.append(RUN_ID, event(seq), record(seq) if seq == 5 else None)
    await log.flush()
    try:
        replayed, _ = await log.read(RUN_ID, 0)
        tail, _ = await log.read(RUN_ID, 2)
    finally:
        await log.close()

    assert replayed == [event(seq) for seq in range(1, 6)]
    assert tail == [event(seq) for seq in (3, 4, 5)]
