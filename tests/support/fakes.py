"""Deterministic stand-ins for time and identifiers (the reproducible ones the docs generator uses too)."""

from __future__ import annotations

from agent.clock import SequentialIds
from agent.clock import SteppingClock as FakeClock

__all__ = ("FakeClock", "SequentialIds")
