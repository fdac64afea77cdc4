"""Deterministic stand-ins for time and identifiers."""

from __future__ import annotations

import itertools

__all__ = ("FakeClock", "SequentialIds")

START_NS = 1_796_000_000_000_000_000  # 2026-11-30T02:13:20Z


class FakeClock:
    """Every reading is ``step_ns`` later than the one before."""

    def __init__(self, start_ns: int = START_NS, step_ns: int = 1_250_000) -> None:
        self._now = start_ns
        self._step = step_ns

    def now_ns(self) -> int:
        self._now += self._step
        return self._now


class SequentialIds:
    def __init__(self) -> None:
        self._counters: dict[str, itertools.count[int]] = {}

    def new(self, prefix: str) -> str:
        counter = self._counters.setdefault(prefix, itertools.count(1))
        return f"{prefix}_{next(counter):04d}"
