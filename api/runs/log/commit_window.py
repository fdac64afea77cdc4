"""When an event log commits what it has queued: at once for an event a reader waits on, soon for the rest.

Readers wait on a token (the answer forming), on ``paused`` and on a terminal event (a JSON caller, the end
of a stream). Nobody waits to the millisecond on a node starting or finishing, the topology, the cost or a
run's record: those wait up to ``GATHER_S`` for company. The first steps of a turn take a few milliseconds
each, so they share the first token's commit (and its one send to each stream) instead of costing a commit
and a send each on the way to it, all on the core that runs the graph. A person watching the graph sees a
node at most ``GATHER_S`` later, well under one frame of the screen.
"""

from __future__ import annotations

import asyncio

from contracts import TERMINAL_EVENT_TYPES

__all__ = ("GATHER_S", "PROMPT_EVENTS", "CommitWindow")

GATHER_S = 0.010
PROMPT_EVENTS = frozenset({"token_delta", "paused", *TERMINAL_EVENT_TYPES})
"""The events committed as soon as the writer runs."""


class CommitWindow:
    """The writer's signal: ``wait()`` returns once what is queued is due."""

    __slots__ = ("_due", "_gather_s", "_timer")

    def __init__(self, gather_s: float = GATHER_S) -> None:
        self._due = asyncio.Event()
        self._gather_s = gather_s
        self._timer: asyncio.TimerHandle | None = None

    def queued(self, event_type: str | None) -> None:
        """An event of ``event_type`` was queued, or a run's record (None)."""
        if event_type in PROMPT_EVENTS:
            self.now()
        elif self._timer is None and not self._due.is_set():
            self._timer = asyncio.get_running_loop().call_later(self._gather_s, self.now)

    def now(self) -> None:
        """Commit what is queued as soon as the writer runs (an event is waited on, or a flush)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._due.set()

    async def wait(self) -> None:
        await self._due.wait()
        self._due.clear()
