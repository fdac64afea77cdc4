"""The checks of who a request is addressed to and which page sent it, as one middleware before identity.

One middleware, not one per check: an SSE stream held open for hours keeps every middleware's frame on its
stack for as long as it lasts, and ten thousand held streams keep ten thousand of each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar.enums import ScopeType

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

    from api.request_checks.allowed_hosts import HostCheck
    from api.request_checks.cross_origin import CrossOriginCheck

__all__ = ("SiteChecks",)


class SiteChecks:
    """Middleware: the ``Host`` (421), then the ``Origin`` (403, or a listed origin's preflight answered)."""

    def __init__(self, app: ASGIApp, hosts: HostCheck, origins: CrossOriginCheck) -> None:
        self.app = app
        self._hosts = hosts
        self._origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            self._hosts.check(scope)
            if await self._origins.answered(scope, receive, send):
                return
        await self.app(scope, receive, send)
