"""The batched writer both event logs share: batches in order, and a commit that fails stops it for good."""

from __future__ import annotations

import asyncio

import pytest

from api.runs.log.writer import BatchWriter, LogUnwritable


async def test_what_is_put_before_a_flush_is_committed_in_order_by_then() -> None:
    committed: list[list[int]] = []

    async def commit(batch: list[int]) -> None:
        committed.append(batch)

    writer: BatchWriter[int] = BatchWriter(commit)
    writer.start()
    for op in range(5):
        writer.put(op)
        writer.queued("node_started")  # due within the window, not at once
    await writer.flush()
    await writer.stop()
    assert [op for batch in committed for op in batch] == [0, 1, 2, 3, 4]


async def test_a_failed_commit_stops_the_writer_and_every_later_flush_says_so() -> None:
    async def commit(batch: list[str]) -> None:
        raise ValueError("a bug in the store's code")

    writer: BatchWriter[str] = BatchWriter(commit)
    writer.start()
    writer.put("event")
    writer.queued("token_delta")
    with pytest.raises(LogUnwritable):
        await asyncio.wait_for(writer.flush(), 30)
    with pytest.raises(LogUnwritable):
        writer.raise_on_failure()
    writer.put("another")  # nothing takes it any more
    writer.queued("token_delta")
    with pytest.raises(LogUnwritable):
        await asyncio.wait_for(writer.flush(), 30)
    await writer.stop()
