"""``GET /healthz``: 200 while the service can take turns."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from litestar import get
from litestar.di import NamedDependency

from api.exceptions import ServiceUnavailable

if TYPE_CHECKING:
    from api.runs.registry import RunRegistry

__all__ = ("Health", "healthz")


class Health(msgspec.Struct, kw_only=True):
    status: str
    live_runs: int
    """Runs running or waiting for a human."""


@get("/healthz", summary="Whether the service can serve", cache=False)
async def healthz(runs: NamedDependency[RunRegistry]) -> Health:
    if runs.closing:
        raise ServiceUnavailable("The service is shutting down.")
    return Health(status="ok", live_runs=runs.live_count)
