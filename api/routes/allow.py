"""``OPTIONS`` for the paths whose methods are served by several handlers.

Litestar makes an ``OPTIONS`` handler for a path when its first handler is registered and does not update its
``Allow`` when handlers of other methods join the path later, so ``GET /threads/{id}`` and ``DELETE
/threads/{id}`` would answer ``Allow: GET, OPTIONS``. Registered just before the first handler of their path, these
say every method, as RFC 9110 asks, and the paths keep the order of their handlers (the OpenAPI document's).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from litestar import Response, route
from litestar.status_codes import HTTP_204_NO_CONTENT

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar.handlers import HTTPRouteHandler

__all__ = ("with_options",)


def with_options(handlers: Sequence[HTTPRouteHandler]) -> list[HTTPRouteHandler]:
    """``handlers``, each path that two or more of them serve preceded by an ``OPTIONS`` handler answering all
    their methods."""
    serving: defaultdict[str, list[HTTPRouteHandler]] = defaultdict(list)
    for handler in handlers:
        for path in handler.paths:
            serving[path].append(handler)
    answered: set[str] = set()
    listed: list[HTTPRouteHandler] = []
    for handler in handlers:
        for path in sorted(handler.paths - answered):
            answered.add(path)
            if len(serving[path]) > 1:
                listed.append(_allow(path, serving[path]))
        listed.append(handler)
    return listed


def _allow(path: str, handlers: list[HTTPRouteHandler]) -> HTTPRouteHandler:
    header = ", ".join(sorted({*(method for handler in handlers for method in handler.http_methods), "OPTIONS"}))

    async def options() -> Response[None]:
        return Response(None, status_code=HTTP_204_NO_CONTENT, headers={"Allow": header})

    # named by the handlers it answers for, unique in the app whatever router prefixes the path
    name = "options:" + ",".join(sorted(handler.handler_name for handler in handlers))
    return route(path, http_method="OPTIONS", include_in_schema=False, name=name)(options)
