"""The service's own API: turns over ``POST /chat`` (JSON or its SSE envelopes), a run's snapshot, events, cancel,
feedback and eval case, the approvals inbox, session erasure, the knowledge base's documents, the health check, the
metrics and the SPA."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.routes._router import grouped
from api.routes.approvals import list_approvals
from api.routes.feedback import post_feedback
from api.routes.health import healthz
from api.routes.knowledge import get_document
from api.routes.run_case import get_run_case
from api.routes.runs import cancel_run, get_run, run_events
from api.routes.sessions import delete_session
from api.routes.spa import index, spa_asset
from api.routes.turns import chat, resume_chat

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar import Router
    from litestar.handlers import HTTPRouteHandler

__all__ = ("native_router",)


def native_router(*, body_checks: Sequence[Any], metrics: HTTPRouteHandler) -> Router:
    """The service's own routes; ``metrics``: the app's ``/metrics`` (``api.metrics.metrics_route``)."""
    return grouped(
        "/",
        [
            chat,
            resume_chat,
            list_approvals,
            get_run,
            run_events,
            cancel_run,
            post_feedback,
            get_run_case,
            delete_session,
            get_document,
            healthz,
            metrics,
            index,
            spa_asset,
        ],
        body_checks=body_checks,
    )
