"""The commit window: an event a reader waits on is due at once, any other within the window."""

from __future__ import annotations

import asyncio

from api.runs.log.commit_window import CommitWindow

_LONGER_THAN_ANY_TEST_S = 3600.0


async def test_a_token_makes_a_queued_node_event_due_at_once() -> None:
    window = CommitWindow(gather_s=_LONGER_THAN_ANY_TEST_S)
    window.queued("node_started")
    waiting = asyncio.ensure_future(window.wait())
    await asyncio.sleep(0)
    assert not waiting.done(), "a node event waits for company"

    window.queued("token_delta")
    await asyncio.sleep(0)
    assert waiting.done(), "a token makes what is queued due at once"


async def test_a_node_event_alone_is_due_when_the_window_closes() -> None:
    window = CommitWindow(gather_s=0.001)
    window.queued("cost_updated")
    await asyncio.wait_for(window.wait(), 30)


async def test_a_flush_makes_a_queued_record_due_at_once() -> None:
    window = CommitWindow(gather_s=_LONGER_THAN_ANY_TEST_S)
    window.queued(None)  # a run's record
    flushed = asyncio.ensure_future(window.wait())
    await asyncio.sleep(0)
    assert not flushed.done()
    window.now()
    await asyncio.sleep(0)
    assert flushed.done()
