"""Prometheus metrics of one instance: ``Metrics`` (its registry and the seams that feed it), ``GET /metrics``.

- ``instruments``: every metric, on the app's own registry.
- ``log``, ``cluster``: the event log and the cluster as the registry sees them, metered (the backends carry no
  metrics code); ``turns``: what the appended events say about turns, models and guardrails.
- ``http``: requests by route template and status, open event streams, 429 refusals.
- ``route``: the scrape, behind ``HARNESS_METRICS_TOKEN`` when it is set.
"""

from __future__ import annotations

from api.metrics.route import metrics_route
from api.metrics.service import Metrics

__all__ = ("Metrics", "metrics_route")
