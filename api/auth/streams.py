"""The event streams open on this instance for signed-in subjects, by the principal their token gave.

A stream is held by the task that sends it. Ending one is cancelling that task once, marked so that the
response knows to finish its body cleanly (no terminal event: the run goes on) rather than take it for a
client that left. Ten thousand held streams cost one small object each here, and no task or timer: the
instance's sweep (``Identity``) looks at each principal once, however many streams it holds.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from api.auth.principal import Principal

if TYPE_CHECKING:
    from collections.abc import Callable

    from litestar.types import Scope


__all__ = ("HeldStream", "OpenStreams", "hold_stream")


class _WatchesStreams(Protocol):
    """The app's identity (``api.auth.identity.Identity``), as far as a stream is concerned."""

    streams: OpenStreams


class HeldStream:
    __slots__ = ("ended", "principal", "streams", "task")

    def __init__(self, streams: OpenStreams, principal: Principal, task: asyncio.Task[object]) -> None:
        self.streams = streams
        self.principal = principal
        self.task = task
        self.ended = False
        """Set when the stream was ended because its token no longer stands."""

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.task.cancel()

    def release(self) -> None:
        """The stream is over: nothing ends it any more."""
        self.streams.release(self)


class OpenStreams:
    def __init__(self) -> None:
        self._held: dict[Principal, set[HeldStream]] = {}

    def hold(self, principal: Principal) -> HeldStream:
        """The stream the current task sends for ``principal``, held until it is released."""
        task = asyncio.current_task()
        assert task is not None, "a stream is sent by a task"
        held = HeldStream(self, principal, task)
        self._held.setdefault(principal, set()).add(held)
        return held

    def release(self, held: HeldStream) -> None:
        streams = self._held.get(held.principal)
        if streams is not None:
            streams.discard(held)
            if not streams:
                del self._held[held.principal]

    def end_where(self, revoked: Callable[[Principal], bool]) -> int:
        """End every stream whose principal is ``revoked``; how many were not ending already."""
        ended = 0
        for principal, streams in self._held.items():
            if revoked(principal):
                for held in streams:
                    ended += not held.ended
                    held.end()
        return ended

    def __len__(self) -> int:
        return sum(len(streams) for streams in self._held.values())


def hold_stream(scope: Scope) -> HeldStream | None:
    """Hold the stream the current task sends in answer to this request, so that it ends when the token it was
    opened with no longer stands; None with identity off (the one user's token cannot be revoked)."""
    identity: _WatchesStreams | None = scope["app"].state.get("auth")
    principal = scope.get("user")
    if identity is None or not isinstance(principal, Principal) or principal.credential is None:
        return None
    return identity.streams.hold(principal)
