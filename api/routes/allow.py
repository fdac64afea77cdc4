"""``OPTIONS`` for a path whose methods are served by several handlers.

Litestar makes an ``OPTIONS`` handler for a path when its first handler is registered and does not update its
``Allow`` when handlers of other methods join the path later, so ``GET /threads/{id}`` and ``DELETE
/threads/{id}`` would answer ``Allow: GET, OPTIONS``. Registered before the path's handlers, this one says
every method, as RFC 9110 asks.
"""

from __future__ import annotations

from litestar import Response, route
from litestar.handlers import HTTPRouteHandler
from litestar.status_codes import HTTP_204_NO_CONTENT

__all__ = ("allow",)


def allow(path: str, *methods: str) -> HTTPRouteHandler:
    """The ``OPTIONS`` handler of ``path``, answering ``Allow`` with ``methods`` and ``OPTIONS``."""
    header = ", ".join(sorted({*methods, "OPTIONS"}))

    async def options() -> Response[None]:
        return Response(None, status_code=HTTP_204_NO_CONTENT, headers={"Allow": header})

    return route(path, http_method="OPTIONS", include_in_schema=False, name=f"options:{path}")(options)
