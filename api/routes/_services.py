"""What a route that starts or follows runs is given, as one dependency: the run core's services and who asks.

A route names ``services`` and adds ``dependencies=RUN_SERVICES`` instead of listing the six it passes on; they
are the app's own dependencies (``runs``, ``graphs``, ``threads``, ``streams``, ``quota``, ``principal``), so
nothing about the route's parameters, and nothing of its OpenAPI operation, changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from litestar.di import NamedDependency, Provide

from agent.graphs import GraphRegistry
from api.auth import Principal
from api.runs.cluster.quotas import StreamQuota
from api.runs.registry import RunRegistry
from api.runs.stream.follow import RunStreams
from api.runs.threads import ThreadBook

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("RUN_SERVICES", "RunServices")


@dataclass(frozen=True, slots=True)
class RunServices:
    runs: RunRegistry
    graphs: GraphRegistry
    threads: ThreadBook
    streams: RunStreams
    quota: StreamQuota
    principal: Principal


def _run_services(
    *,
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    threads: NamedDependency[ThreadBook],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> RunServices:
    return RunServices(runs, graphs, threads, streams, quota, principal)


RUN_SERVICES: Mapping[str, Provide] = {"services": Provide(_run_services, sync_to_thread=False)}
"""A route's ``dependencies``: its ``services`` parameter."""
