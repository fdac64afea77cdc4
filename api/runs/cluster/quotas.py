"""How many event streams one subject may hold open at once (``HARNESS_STREAMS_PER_SUBJECT``).

A stream takes a slot before its response starts and gives it back when it ends; one slot too many is a
429 with ``Retry-After``. ``LocalStreamQuota`` counts in this process (embedded stores); the cluster's
quota counts across every instance in Redis, each slot expiring unless its instance renews it.
"""

from __future__ import annotations

import itertools
from typing import Protocol, runtime_checkable

from api.runs.errors import TooManyStreams

__all__ = ("LocalStreamQuota", "StreamQuota", "too_many")


@runtime_checkable  # a Litestar dependency: its value is checked against it
class StreamQuota(Protocol):
    async def acquire(self, subject: str) -> str:
        """A slot for one more stream of ``subject``, or ``TooManyStreams``."""
        ...

    async def release(self, slot: str) -> None: ...


class LocalStreamQuota:
    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._open: dict[str, set[str]] = {}
        self._numbers = itertools.count()

    async def acquire(self, subject: str) -> str:
        slots = self._open.setdefault(subject, set())
        if len(slots) >= self._limit:
            raise too_many(self._limit)
        slot = f"{subject}\n{next(self._numbers)}"
        slots.add(slot)
        return slot

    async def release(self, slot: str) -> None:
        subject = slot.partition("\n")[0]
        slots = self._open.get(subject)
        if slots is not None:
            slots.discard(slot)
            if not slots:
                del self._open[subject]


def too_many(limit: int) -> TooManyStreams:
    return TooManyStreams(f"This subject already holds {limit} open event streams; close one or retry later.")
