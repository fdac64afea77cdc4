"""``GET /healthz``: 200 while the service can take turns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar import get
from litestar.di import NamedDependency

from api.openapi import problem_responses
from contracts import Health

if TYPE_CHECKING:
    from api.runs.registry import RunRegistry

__all__ = ("healthz",)


@get(
    "/healthz",
    operation_id="healthz",
    tags=["health"],
    summary="Whether the service can serve",
    cache=False,
    public=True,
    responses=problem_responses(503),
)
async def healthz(runs: NamedDependency[RunRegistry]) -> Health:
    await runs.check()
    return Health(status="ok", live_runs=runs.live_count)
