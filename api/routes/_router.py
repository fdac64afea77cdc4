"""A protocol's routes as one Litestar ``Router``, the routes that read a body wrapped in the body checks.

The body checks (and the turn rate limit) wrap only the routes that read a body: a held stream carries no middleware
frame that has nothing to do with it (ten thousand held streams hold one stack each).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from litestar import Router
from litestar.handlers import HTTPRouteHandler

from api.request_checks import takes_body

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ("grouped",)


def grouped(path: str, routes: Iterable[HTTPRouteHandler | Router], *, body_checks: Sequence[Any]) -> Router:
    """A ``Router`` at ``path`` of ``routes`` (handlers and the routers of their own prefixes); a handler that reads
    a body gets ``body_checks``, run after the app's middleware."""
    return Router(
        path,
        route_handlers=[
            _with_middleware(route, body_checks) if isinstance(route, HTTPRouteHandler) and takes_body(route) else route
            for route in routes
        ],
    )


def _with_middleware(handler: HTTPRouteHandler, middleware: Sequence[Any]) -> HTTPRouteHandler:
    """A copy of ``handler`` (the decorated function is shared by every app made here) with ``middleware`` of its
    own, run after the app's and its routers'."""
    copied = copy.copy(handler)
    copied.middleware = [*(handler.middleware or ()), *middleware]
    return copied
