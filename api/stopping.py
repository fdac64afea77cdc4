"""Stopping a background task of this service: cancelled, and cancelled again for as long as it runs on.

Python 3.11's ``asyncio.wait_for``, which redis-py sends every command through, swallows a cancellation that lands
as the command completes (ADR 33): a loop stopped that way would go on waiting for its next batch or period, and
the shutdown waiting for it with it. A loop has no cleanup that a second cancellation could cut short.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ("stop_task",)

_AGAIN_S = 0.1


async def stop_task(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and return once it has ended, whatever it ended with."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=_AGAIN_S)
    if not task.cancelled():
        task.exception()  # retrieved: what it failed with was its own to report
