"""The commit window: an event a reader waits on is due at once, any other within the window."""

from __future__ import annotations

import asyncio

from api.runs.commit_window import CommitWindow


async def test_a_token_is_due_at_once_and_a_node_event_when_the_window_closes() -> None:
    window = CommitWindow()
    window.queued("node_started")
    waiting = asyncio.ensure_future(window.wait())
    await asyncio.sleep(0)
    assert not waiting.done(), "a node event waits for company"

    window.queued("token_delta")
    await asyncio.sleep(0)
    assert waiting.done(), "a token makes what is queued due at once"

    window.queued("cost_updated")
    await asyncio.wait_for(window.wait(), 5)  # alone, it is due when the window's timer fires

    window.queued(None)  # a run's record
    flushed = asyncio.ensure_future(window.wait())
    await asyncio.sleep(0)
    assert not flushed.done()
    window.now()  # a flush
    await asyncio.sleep(0)
    assert flushed.done()
