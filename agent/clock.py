"""Time and identifiers, injectable so that a turn can be replayed byte for byte in tests."""

from __future__ import annotations

import functools
import itertools
import time
import uuid
from datetime import UTC, datetime
from typing import Protocol

__all__ = ("Clock", "IdFactory", "RandomIds", "SequentialIds", "SteppingClock", "SystemClock", "format_timestamp")


class Clock(Protocol):
    def now_ns(self) -> int:
        """Nanoseconds since the Unix epoch."""
        ...


class SystemClock:
    def now_ns(self) -> int:
        return time.time_ns()


class SteppingClock:
    """A clock for reproducible runs (tests, generated docs): every reading is ``step_ns`` after the last."""

    def __init__(self, start_ns: int = 1_796_000_000_000_000_000, step_ns: int = 1_250_000) -> None:
        self._now = start_ns
        self._step = step_ns

    def now_ns(self) -> int:
        self._now += self._step
        return self._now


class IdFactory(Protocol):
    def new(self, prefix: str) -> str:
        """A fresh identifier such as ``r_0c1d2e3f4a5b6c7d`` for ``prefix="r"``."""
        ...


class RandomIds:
    def new(self, prefix: str) -> str:
        from agent.guardrails import redact  # the guardrails do not need the clock; importing them here is no cycle

        while True:
            candidate = f"{prefix}_{uuid.uuid4().hex[:16]}"
            # about one hex id in a thousand has a digit run that passes for a card or account number, which
            # the service refuses as a session id (and redacts anywhere): such an id is drawn again
            if redact(candidate) == candidate:
                return candidate


class SequentialIds:
    """Identifiers for reproducible runs: ``r_0001``, ``r_0002``, ..."""

    def __init__(self) -> None:
        self._counters: dict[str, itertools.count[int]] = {}

    def new(self, prefix: str) -> str:
        counter = self._counters.setdefault(prefix, itertools.count(1))
        return f"{prefix}_{next(counter):04d}"


def format_timestamp(ns: int) -> str:
    """RFC 3339, UTC, microseconds: ``2026-11-30T04:12:59.123456Z``."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    return f"{_format_second(seconds)}.{nanos // 1000:06d}Z"


@functools.lru_cache(maxsize=4)
def _format_second(seconds: int) -> str:
    """The date and time of a second; every event of a busy second formats it once."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
