"""The commit window: an event a reader waits on is due at once, any other within the window."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from typing import TYPE_CHECKING

from api.runs.log.commit_window import CommitWindow

if TYPE_CHECKING:
    from collections.abc import Iterator

_LONGER_THAN_ANY_TEST_S = 3600.0


class _LoopClock:
    """The running loop's clock, moved by the test alone: its timers fire when the test says the time has come."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.now = loop.time()

    def time(self) -> float:
        return self.now

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        for _ in range(5):  # the due timer's callback, then the waiter it wakes
            await asyncio.sleep(0)


@contextmanager
def _loop_clock() -> Iterator[_LoopClock]:
    loop = asyncio.get_running_loop()
    clock = _LoopClock(loop)
    loop.time = clock.time  # type: ignore[method-assign]
    try:
        yield clock
    finally:
        del loop.time


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
    with _loop_clock() as clock:
        window = CommitWindow(gather_s=0.5)
        window.queued("cost_updated")
        waiting = asyncio.ensure_future(window.wait())
        await clock.advance(0.49)
        assert not waiting.done(), "the window is still open"
        await clock.advance(0.02)
        assert waiting.done(), "the window has closed"


async def test_a_flush_makes_a_queued_record_due_at_once() -> None:
    window = CommitWindow(gather_s=_LONGER_THAN_ANY_TEST_S)
    window.queued(None)  # a run's record
    flushed = asyncio.ensure_future(window.wait())
    await asyncio.sleep(0)
    assert not flushed.done()
    window.now()
    await asyncio.sleep(0)
    assert flushed.done()
