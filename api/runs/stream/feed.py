"""Who follows which run on this instance, and waking them when the run's events are committed.

Streams (and JSON callers) follow a run by id, not by object: the run may execute here, on another
instance, or nowhere while it waits for a human. Commits reach the feed from this instance's event log
and, with shared stores, from other instances through the cluster. A follower registers before it reads,
so a commit between its read and its wait is never missed.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import TYPE_CHECKING

from api.runs.stream.timeouts import Timeouts

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ("Follower", "RunFeed")


class _Followed:
    __slots__ = ("committed", "count", "left", "waiters")

    def __init__(self) -> None:
        self.count = 0
        self.committed = 0
        """The highest seq known to be committed since the first follower came."""
        self.waiters: list[asyncio.Future[bool]] = []
        """One per follower waiting for the next change; each is resolved with True when it comes."""
        self.left: list[asyncio.Future[None]] | None = None
        """Who waits for the last follower to leave (``RunFeed.unfollowed``); None while nobody does."""


class Follower:
    """Follows one run while its ``with`` block lasts (a plain object: ten thousand held streams hold one each)."""

    __slots__ = ("_feed", "_followed", "_run_id", "_seen")

    def __init__(self, feed: RunFeed, run_id: str) -> None:
        self._feed = feed
        self._run_id = run_id
        self._followed: _Followed | None = None
        self._seen = 0

    def __enter__(self) -> Follower:
        self._followed = self._feed._join(self._run_id)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._followed is not None:
            followed, self._followed = self._followed, None
            self._feed._leave(self._run_id, followed)

    async def wait(self, cursor: int, within_s: float) -> bool:
        """Wait for an event after ``cursor`` (or a wake-up); False when ``within_s`` passed in silence."""
        followed = self._followed
        assert followed is not None, "a follower waits inside its with block"
        if followed.committed > max(cursor, self._seen):
            self._seen = followed.committed
            return True
        # A future and a slot of the shared timeouts: a silent period (a heartbeat) raises nothing and creates
        # no task
        timeouts = self._feed.timeouts
        waiter = timeouts.future()
        followed.waiters.append(waiter)
        slot = timeouts.add(waiter, within_s)
        try:
            return await waiter
        finally:
            timeouts.discard(waiter, slot)
            with suppress(ValueError):  # a wake-up took the whole list already
                followed.waiters.remove(waiter)


class RunFeed:
    def __init__(self, on_followers: Callable[[str, int], None]) -> None:
        """``on_followers(run_id, count)`` is called when a run gets its first follower here or loses its last."""
        self._followed: dict[str, _Followed] = {}
        self._on_followers = on_followers
        self.timeouts = Timeouts()

    def follow(self, run_id: str) -> Follower:
        """``with feed.follow(run_id) as follower:`` follows the run inside the block."""
        return Follower(self, run_id)

    def _join(self, run_id: str) -> _Followed:
        followed = self._followed.get(run_id)
        if followed is None:
            followed = self._followed[run_id] = _Followed()
        followed.count += 1
        if followed.count == 1:
            self._on_followers(run_id, 1)
        return followed

    def _leave(self, run_id: str, followed: _Followed) -> None:
        followed.count -= 1
        if followed.count:
            return
        del self._followed[run_id]
        for waiter in followed.left or ():
            if not waiter.done():
                waiter.set_result(None)
        self._on_followers(run_id, 0)

    async def unfollowed(self, run_id: str) -> None:
        """Return once nobody here follows the run."""
        while (followed := self._followed.get(run_id)) is not None:
            if followed.left is None:
                followed.left = []
            left: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            followed.left.append(left)
            try:
                await left
            finally:
                with suppress(ValueError):
                    followed.left.remove(left)

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
            if not waiter.done():
                waiter.set_result(True)
