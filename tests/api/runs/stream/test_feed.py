"""The run feed: a follower's wait ends with a commit, a wake-up or silence, and leaves nothing behind."""

from __future__ import annotations

import asyncio
import contextlib

from api.runs.stream.feed import RunFeed

RUN_ID = "r_followed"


async def test_a_wait_ends_with_a_commit_a_wake_up_or_silence() -> None:
    feed = RunFeed(lambda run_id, count: None)
    with feed.follow(RUN_ID) as follower:
        silent = await follower.wait(0, 0.01)

        committed = asyncio.ensure_future(follower.wait(0, 60))
        await asyncio.sleep(0)
        feed.notify(RUN_ID, 3)
        after_commit = await committed

        woken = asyncio.ensure_future(follower.wait(3, 60))
        await asyncio.sleep(0)
        feed.wake(RUN_ID)
        after_wake = await woken

        # a commit after the cursor answers at once, without waiting out the period
        already = await asyncio.wait_for(follower.wait(2, 60), 5)
    assert (silent, after_commit, after_wake, already) == (False, True, True, True)


async def test_silent_periods_and_cancelled_waits_leave_no_waiter_behind() -> None:
    """A paused run's stream waits out a heartbeat period for hours: each period must leave nothing."""
    feed = RunFeed(lambda run_id, count: None)
    with feed.follow(RUN_ID) as follower:
        for _ in range(50):
            assert await follower.wait(0, 0) is False
        cancelled = asyncio.ensure_future(follower.wait(0, 60))
        await asyncio.sleep(0)
        cancelled.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await cancelled
        followed = feed._followed[RUN_ID]
        assert followed.waiters == []


async def test_unfollowed_returns_when_the_last_follower_leaves_and_a_cancelled_wait_leaves_nothing() -> None:
    feed = RunFeed(lambda run_id, count: None)
    first, second = feed.follow(RUN_ID), feed.follow(RUN_ID)
    with first, second:
        gone = asyncio.ensure_future(feed.unfollowed(RUN_ID))
        abandoned = asyncio.ensure_future(feed.unfollowed(RUN_ID))
        await asyncio.sleep(0)
        abandoned.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await abandoned
        assert len(feed._followed[RUN_ID].left or []) == 1, "the cancelled wait took its future away"
        first.__exit__(None, None, None)
        await asyncio.sleep(0)
        assert not gone.done(), "one follower is still there"
    await asyncio.wait_for(gone, 5)
    assert feed.count(RUN_ID) == 0
    await asyncio.wait_for(feed.unfollowed(RUN_ID), 5)  # nobody follows: at once
