"""``OPTIONS`` for the paths whose methods are served by several handlers.

Litestar makes an ``OPTIONS`` handler for a path when its first handler is registered and does not update its
``Allow`` when handlers of other methods join the path later, so ``GET /threads/{id}`` and ``DELETE
/threads/{id}`` would answer ``Allow: GET, OPTIONS``. Registered before the routes they are made from, these
say every method, as RFC 9110 asks.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from litestar import Response, route
from litestar.status_codes import HTTP_204_NO_CONTENT

if TYPE_CHECKING:
    from collections.abc import Iterable

    from litestar.handlers import HTTPRouteHandler

__all__ = ("options_for",)


def options_for(handlers: Iterable[HTTPRouteHandler]) -> list[HTTPRouteHandler]:
    """An ``OPTIONS`` handler for each path that two or more of ``handlers`` serve, answering all their methods."""
    methods: defaultdict[str, set[str]] = defaultdict(set)
    for handler in handlers:
        for path in handler.paths:
            methods[path] |= set(handler.http_methods)
    return [_allow(path, served) for path, served in methods.items() if len(served) > 1]


def _allow(path: str, methods: set[str]) -> HTTPRouteHandler:
    header = ", ".join(sorted({*methods, "OPTIONS"}))

    async def options() -> Response[None]:
        return Response(None, status_code=HTTP_204_NO_CONTENT, headers={"Allow": header})

    return route(path, http_method="OPTIONS", include_in_schema=False, name=f"options:{path}")(options)
