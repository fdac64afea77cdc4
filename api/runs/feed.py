"""Who follows which run on this instance, and waking them when the run's events are committed.

Streams (and JSON callers) follow a run by id, not by object: the run may execute here, on another
instance, or nowhere while it waits for a human. Commits reach the feed from this instance's event log
and, with shared stores, from other instances through the cluster. A follower registers before it reads,
so a commit between its read and its wait is never missed.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ("Follower", "RunFeed")


class _Followed:
    __slots__ = ("committed", "count", "left", "waiters")

    def __init__(self) -> None:
        self.count = 0
        self.committed = 0
        """The highest seq known to be committed since the first follower came."""
        self.waiters: list[asyncio.Future[bool]] = []
        """One per follower waiting for the next change; each is resolved with True when it comes."""
        self.left = asyncio.Event()
        """Set when the last follower leaves."""


class Follower:
    __slots__ = ("_followed", "_seen")

    def __init__(self, followed: _Followed) -> None:
        self._followed = followed
        self._seen = 0

    async def wait(self, cursor: int, within_s: float) -> bool:
        """Wait for an event after ``cursor`` (or a wake-up); False when ``within_s`` passed in silence."""
        followed = self._followed
        if followed.committed > max(cursor, self._seen):
            self._seen = followed.committed
            return True
        # A future and a timer: a silent period (a heartbeat) raises nothing and creates no task
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        followed.waiters.append(waiter)
        timer = loop.call_later(within_s, _resolve, waiter, False)
        try:
            return await waiter
        finally:
            timer.cancel()
            with suppress(ValueError):  # a wake-up took the whole list already
                followed.waiters.remove(waiter)


class RunFeed:
    def __init__(self, on_followers: Callable[[str, int], None]) -> None:
        """``on_followers(run_id, count)`` is called when a run gets its first follower here or loses its last."""
        self._followed: dict[str, _Followed] = {}
        self._on_followers = on_followers

    @contextmanager
    def follow(self, run_id: str) -> Iterator[Follower]:
        followed = self._followed.get(run_id)
        if followed is None:
            followed = self._followed[run_id] = _Followed()
        followed.count += 1
        if followed.count == 1:
            self._on_followers(run_id, 1)
        try:
            yield Follower(followed)
        finally:
            followed.count -= 1
            if followed.count == 0:
                del self._followed[run_id]
                followed.left.set()
                self._on_followers(run_id, 0)

    async def unfollowed(self, run_id: str) -> None:
        """Return once nobody here follows the run."""
        while (followed := self._followed.get(run_id)) is not None:
            await followed.left.wait()

    def count(self, run_id: str) -> int:
        followed = self._followed.get(run_id)
        return 0 if followed is None else followed.count

    @property
    def followed(self) -> list[str]:
        return list(self._followed)

    def notify(self, run_id: str, seq: int) -> None:
        """Events of ``run_id`` up to ``seq`` are committed."""
        followed = self._followed.get(run_id)
        if followed is None:
            return
        followed.committed = max(followed.committed, seq)
        self._wake(followed)

    def wake(self, run_id: str) -> None:
        """Make the run's followers look again (its state changed without a new event here)."""
        followed = self._followed.get(run_id)
        if followed is not None:
            self._wake(followed)

    def wake_all(self) -> None:
        """Make every follower look again (the service is shutting down)."""
        for followed in self._followed.values():
            self._wake(followed)

    @staticmethod
    def _wake(followed: _Followed) -> None:
        waiters, followed.waiters = followed.waiters, []
        for waiter in waiters:
            _resolve(waiter, True)


def _resolve(waiter: asyncio.Future[bool], changed: bool) -> None:
    if not waiter.done():
        waiter.set_result(changed)
