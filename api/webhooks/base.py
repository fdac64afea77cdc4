"""The outbox's base: what a delivery is as stored (``Delivery``), what every backend does (``WebhookOutbox``), and
the schedule of retries (``retry_delay``).

A delivery is a row per run with a ``webhook``, written before the run starts (``WebhookOutbox.add``): it holds no
URL (the run's record has it, sealed with the rest) but only what schedules it. ``due_ms`` is when it is looked at
next: at once when its run ends on an instance (``make_due``), else at the next check (a run that has not ended, or
a retry's wait). ``claim`` takes due rows for one instance with a lease (``claimed_until_ms``, ``holder``): another
instance takes a row only after that lease has run out, so a delivery whose instance died is taken up again. Every
later write names the holder, so an instance whose lease ran out changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import msgspec

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ("Delivery", "WebhookOutbox", "retry_delay")


class Delivery(msgspec.Struct, kw_only=True):
    run_id: str
    session_id: str
    created_ms: int
    attempts: int = 0
    """POSTs made so far (a check of a run not ended yet is not one)."""
    checks: int = 0
    """Looks at a run that had not ended yet: the next look waits longer."""


class WebhookOutbox(Protocol):
    async def add(self, delivery: Delivery, due_ms: int) -> None:
        """Record the delivery of a run (nothing if its run has one already)."""
        ...

    async def make_due(self, run_ids: Sequence[str], now_ms: int) -> None:
        """The runs ended: look at their deliveries now (not at a retry's: its wait stands)."""
        ...

    async def claim(self, now_ms: int, lease_ms: int, holder: str, limit: int) -> list[Delivery]:
        """Take up to ``limit`` deliveries due and not held by a live lease, for ``holder``, until ``now_ms +
        lease_ms``."""
        ...

    async def later(self, delivery: Delivery, holder: str, due_ms: int) -> None:
        """Put a claimed delivery back, to be looked at again at ``due_ms`` (its ``attempts`` and ``checks`` as
        they stand now)."""
        ...

    async def done(self, run_id: str, holder: str) -> bool:
        """Remove a claimed delivery (delivered, given up, or its run gone); False when ``holder`` no longer
        held it."""
        ...

    async def release(self, holder: str) -> None:
        """Put back every delivery ``holder`` holds, due at once (the instance is stopping)."""
        ...

    async def forget(self, run_ids: Sequence[str], session_ids: Sequence[str]) -> int:
        """Remove the deliveries of these runs and of every run of these sessions (an erasure); how many went."""
        ...

    async def close(self) -> None: ...


def retry_delay(attempts: int, base_s: float, cap_s: float, retry_after_s: float | None = None) -> float:
    """The wait after the ``attempts``-th failed attempt: ``base_s``, then twice as long each time, at most
    ``cap_s``; a receiver's ``Retry-After`` lengthens it (never beyond ``cap_s``)."""
    delay = min(cap_s, base_s * 2.0 ** min(60, max(0, attempts - 1)))
    if retry_after_s is not None:
        delay = min(cap_s, max(delay, retry_after_s))
    return delay
