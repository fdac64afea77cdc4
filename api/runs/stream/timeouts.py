"""The silent periods of every follower's wait, timed by one loop timer.

A stream held on a paused run waits out a heartbeat period, over and over, for hours; ten thousand of them
each arming a loop timer per period cost a timer object, two heap operations and, at scattered moments, a
wake-up of the process per heartbeat. Here a wait's deadline is rounded up to a slot of ``SLOT_S``: waits
ending in the same slot share it, and only the earliest slot has a loop timer. A wait ends at most
``SLOT_S`` after its period.
"""

from __future__ import annotations

import asyncio
import heapq
import math

__all__ = ("SLOT_S", "Timeouts")

SLOT_S = 0.01
_SPARE = 64


class Timeouts:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: dict[int, set[asyncio.Future[bool]]] = {}
        self._due: list[int] = []
        """The slots' numbers as a heap; a slot whose waits all ended early may still be in it."""
        self._timer: asyncio.TimerHandle | None = None
        self._timer_slot = 0

    def future(self) -> asyncio.Future[bool]:
        """A future of this loop for ``add``; resolved with False when its time is up."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()  # once: the lookup is a system call per wait in Python 3.11
        return self._loop.create_future()

    def add(self, waiter: asyncio.Future[bool], within_s: float) -> int:
        """Resolve ``waiter`` with False once ``within_s`` passed (unless resolved before); its slot, for
        ``discard``."""
        assert self._loop is not None, "the future came from future()"
        slot = math.ceil((self._loop.time() + within_s) / SLOT_S)
        waiters = self._slots.get(slot)
        if waiters is None:
            waiters = self._slots[slot] = set()
            heapq.heappush(self._due, slot)
            if self._timer is None or slot < self._timer_slot:
                self._arm(slot)
        waiters.add(waiter)
        return slot

    def discard(self, waiter: asyncio.Future[bool], slot: int) -> None:
        """``waiter`` no longer needs its time kept (it was resolved, or its wait cancelled)."""
        waiters = self._slots.get(slot)
        if waiters is None:
            return
        waiters.discard(waiter)
        if not waiters:
            del self._slots[slot]  # its number stays in the heap until it comes up
            if len(self._due) > 2 * len(self._slots) + _SPARE:
                # a stream woken by every commit leaves a slot a period ahead each time: with a long period
                # the heap would keep hours of them
                self._due = sorted(self._slots)

    def _arm(self, slot: int) -> None:
        assert self._loop is not None
        if self._timer is not None:
            self._timer.cancel()
        self._timer_slot = slot
        self._timer = self._loop.call_at(slot * SLOT_S, self._fire)

    def _fire(self) -> None:
        assert self._loop is not None
        self._timer = None
        # the timer's slot has come even when the loop's clock reads a hair earlier
        now = max(self._timer_slot, math.floor(self._loop.time() / SLOT_S))
        due = self._due
        while due and due[0] <= now:
            for waiter in self._slots.pop(heapq.heappop(due), ()):
                if not waiter.done():
                    waiter.set_result(False)
        while due and due[0] not in self._slots:
            heapq.heappop(due)
        if due:
            self._arm(due[0])
