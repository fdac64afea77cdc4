"""What the run core asks of the webhooks (``api.webhooks``), which it knows only by this protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.log.records import RunRecord

__all__ = ("Webhooks",)


class Webhooks(Protocol):
    def check(self, url: str) -> None:
        """Refuse a ``webhook`` not allowed (422 ``webhook_not_allowed``): asked before the run's thread is found or
        made."""
        ...

    async def expect(self, record: RunRecord) -> None:
        """Before a run with a ``webhook`` starts (or a resume names one): record that the run is to be delivered
        when it ends (a URL not allowed is refused here too, for a caller that did not ``check`` it)."""
        ...

    def ended(self, run_id: str) -> None:
        """The end of a run with a ``webhook`` is committed here: deliver it now."""
        ...

    async def forget(self, run_ids: Sequence[str], session_ids: Sequence[str]) -> int:
        """Remove the deliveries of these runs and of the runs of these sessions (refused runs, erasures)."""
        ...
