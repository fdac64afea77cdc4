"""The registry's side of the webhooks: which runs are to be delivered when they end, recorded before they start."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from api.runs.log.records import GraphRun, RunRecord
    from api.runs.run import Run
    from api.runs.webhooks import Webhooks

__all__ = ("WebhookExpectations",)


class WebhookExpectations:
    """What the run core tells the webhooks (``api.webhooks``), when there are any, about runs with a ``webhook``."""

    def __init__(self, webhooks: Webhooks | None) -> None:
        self._webhooks = webhooks

    def check(self, options: GraphRun) -> None:
        """Refuse (422 ``webhook_not_allowed``) a run whose ``webhook`` may not be called. ``api.graph_runs`` asks
        before it finds or makes the run's thread, so a refused run leaves no thread behind."""
        if self._webhooks is not None and options.webhook is not None:
            self._webhooks.check(options.webhook)

    async def expect(self, record: RunRecord) -> None:
        """Record, before the run starts (or resumes), that its end is to be delivered."""
        if self._webhooks is not None and record.graph is not None and record.graph.webhook is not None:
            await self._webhooks.expect(record)

    async def unexpect(self, record: RunRecord) -> None:
        """Forget the delivery of a run that did not start after all."""
        if self._webhooks is not None and record.graph is not None and record.graph.webhook is not None:
            await self._webhooks.forget([record.run_id], [])

    def ended(self, run: Run) -> None:
        """The end of ``run`` is committed here: deliver it now if it asked for a webhook."""
        if run.finished and self._webhooks is not None and (graph := run.record.graph) and graph.webhook:
            self._webhooks.ended(run.run_id)
