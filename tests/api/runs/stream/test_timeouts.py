"""The shared timeouts of followers' waits: each wait ends after its period, on one loop timer, leaving nothing."""

from __future__ import annotations

import asyncio

from api.runs.stream.timeouts import SLOT_S, Timeouts


async def _wait(timeouts: Timeouts, within_s: float) -> tuple[bool, float]:
    """What the wait ended with, and how long after it began by the loop's clock."""
    loop = asyncio.get_running_loop()
    waiter = timeouts.future()
    began = loop.time()
    slot = timeouts.add(waiter, within_s)
    try:
        return await waiter, loop.time() - began
    finally:
        timeouts.discard(waiter, slot)


async def test_each_wait_ends_false_once_its_period_passed_and_no_slot_is_left() -> None:
    timeouts = Timeouts()
    periods = [0.05, 0.0, 0.03, 0.05, 0.01] * 20
    ended = await asyncio.gather(*(_wait(timeouts, period) for period in periods))
    assert [result for result, _ in ended] == [False] * len(periods)
    # the loop's clock may read up to a millisecond early; a wait never ends a whole slot before its period
    assert all(took >= period - SLOT_S for (_, took), period in zip(ended, periods, strict=True))
    assert timeouts._slots == {}
    assert timeouts._timer is None


async def test_a_shorter_wait_added_after_a_long_one_is_not_held_up_by_it() -> None:
    timeouts = Timeouts()
    long_wait = asyncio.ensure_future(_wait(timeouts, 3600))
    await asyncio.sleep(0)
    result, _ = await asyncio.wait_for(_wait(timeouts, 0.02), 5)
    assert result is False
    assert not long_wait.done()
    long_wait.cancel()
    await asyncio.gather(long_wait, return_exceptions=True)
    assert timeouts._slots == {}


async def test_a_wait_resolved_or_cancelled_early_takes_its_place_away() -> None:
    timeouts = Timeouts()
    woken = timeouts.future()
    slot = timeouts.add(woken, 3600)
    woken.set_result(True)
    timeouts.discard(woken, slot)
    cancelled = asyncio.ensure_future(_wait(timeouts, 3600))
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    assert timeouts._slots == {}
    # the armed timer comes up for a slot nobody waits in any more and leaves no timer behind
    timeouts._fire()
    assert timeouts._timer is None
    assert timeouts._due == []


async def test_waits_woken_before_their_time_do_not_pile_up_in_the_heap() -> None:
    """A stream of a busy run is woken by each commit, each wait a period ahead: nothing of them may stay."""
    timeouts = Timeouts()
    for step in range(5_000):
        waiter = timeouts.future()
        slot = timeouts.add(waiter, 3600 + step * SLOT_S)
        waiter.set_result(True)
        timeouts.discard(waiter, slot)
    assert timeouts._slots == {}
    assert len(timeouts._due) <= 64
