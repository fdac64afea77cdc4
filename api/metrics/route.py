"""``GET /metrics``: the Prometheus text exposition of this instance (docs/operations.md, docs/adr/0024).

With ``HARNESS_METRICS_TOKEN`` set it answers only ``Authorization: Bearer <that token>`` (and no identity token
is asked for); unset, it answers whoever may call the service: anyone with identity off, a valid identity token
with it on. It is left out of the OpenAPI document: its format is Prometheus's, and generated clients have no
use for it.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from litestar import Request, Response, get

from api.auth.middleware import PUBLIC
from api.exceptions import TokenRejected

if TYPE_CHECKING:
    from litestar.handlers import HTTPRouteHandler

    from api.metrics.service import Metrics

__all__ = ("metrics_route",)

TEXT_FORMAT = "text/plain; version=0.0.4"
"""Prometheus's text exposition format, which every Prometheus 2 reads (Litestar adds the charset, UTF-8)."""


def metrics_route(token: str | None) -> HTTPRouteHandler:
    """The route of one app; ``token``: ``HARNESS_METRICS_TOKEN``."""
    expected = None if token is None else f"Bearer {token}".encode()

    async def metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
        if expected is not None:
            _check(request.headers.get("authorization"), expected)
        exposition: Metrics = request.app.state.metrics
        return Response(await exposition.scrape(), media_type=TEXT_FORMAT)

    return get("/metrics", include_in_schema=False, cache=False, opt={PUBLIC: expected is not None})(metrics)


def _check(authorization: str | None, expected: bytes) -> None:
    if not authorization:
        raise TokenRejected("token_missing", "GET /metrics needs `Authorization: Bearer <HARNESS_METRICS_TOKEN>`.")
    if not hmac.compare_digest(authorization.encode(), expected):
        raise TokenRejected("token_unknown", "The bearer token is not the metrics token (HARNESS_METRICS_TOKEN).")
