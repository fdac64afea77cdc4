"""What a route that starts or follows runs is given, as one dependency: the run core's services and who asks.

A route names ``services`` and adds ``dependencies=RUN_SERVICES`` instead of listing the six it passes on; they
are the app's own dependencies (``runs``, ``graphs``, ``threads``, ``streams``, ``quota``, ``principal``), so
nothing about the route's parameters, and nothing of its OpenAPI operation, changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from litestar import post
from litestar.di import NamedDependency, Provide

from agent.graphs import GraphRegistry
from api.auth import Principal
from api.openapi import problem_responses
from api.runs.cluster.quotas import StreamQuota
from api.runs.registry import RunRegistry
from api.runs.stream.follow import RunStreams
from api.runs.threads import ThreadBook

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("CHAT_STARTS", "RUN_SERVICES", "RunServices", "turn_route")


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

turn_route = partial(post, tags=["turns"], status_code=200, dependencies=RUN_SERVICES)
"""A POST that runs a turn of a graph for a chat protocol (the service's own, AG-UI, the AI SDK)."""
CHAT_STARTS = problem_responses(401, 403, 404, 409, 413, 422, 429, 503)
"""What a chat protocol's turn may be refused with."""
