"""A JSON route reads only JSON: a body of another media type is refused (415), a too-deep one or one of the
wrong types (``body_types``) too (422).

Litestar parses a route's ``data`` as JSON whatever the ``Content-Type`` says, so a page of any origin could
start a turn with a ``text/plain`` or form ``POST``, which a browser sends cross-site without a preflight.
``application/json`` and the ``+json`` types are accepted, with any parameters (``charset``); a body with no
``Content-Type`` at all is refused too. The body is read within ``HARNESS_REQUEST_READ_TIMEOUT_S`` of its
headers (408 when it comes slower). The body read here is the one the route then parses: Litestar keeps it
on the connection, and enforces ``HARNESS_MAX_BODY_BYTES`` (413) while reading it.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from litestar import Request
from litestar.enums import ScopeType

from api.exceptions import BodyTooDeep, UnsupportedMediaType
from api.request_checks._scope import header
from api.request_checks.body_types import StrictBodies
from api.request_checks.json_depth import MAX_JSON_DEPTH, nests_deeper_than
from api.request_checks.read_deadline import deadline_receive

if TYPE_CHECKING:
    from litestar.handlers import BaseRouteHandler
    from litestar.types import ASGIApp, HTTPScope, Receive, Scope, Send

__all__ = ("JsonBodyCheck", "is_json_media_type", "takes_body")


def is_json_media_type(content_type: str) -> bool:
    media_type = content_type.partition(";")[0].strip().lower()
    kind, _, subtype = media_type.partition("/")
    return kind == "application" and (subtype == "json" or (subtype.endswith("+json") and len(subtype) > 5))


_BODY_PARAMETERS = frozenset({"data", "body"})


def takes_body(handler: BaseRouteHandler) -> bool:
    """Whether the route reads a body: its handler has a ``data`` parameter, as Litestar names it, or a ``body``
    (``RawBody``: the JSON-RPC routes, A2A's and MCP's, which answer a body that is no JSON as JSON-RPC does)."""
    return not _BODY_PARAMETERS.isdisjoint(inspect.signature(handler.fn).parameters)


class JsonBodyCheck:
    """Middleware for the routes that take a body (``takes_body``): its media type, then its depth."""

    def __init__(self, app: ASGIApp, *, read_timeout_s: float) -> None:
        self.app = app
        self._read_timeout_s = read_timeout_s
        self._strict = StrictBodies()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            body = await _check(scope, deadline_receive(receive, self._read_timeout_s), send)
            self._strict.check(scope["route_handler"], body)
        await self.app(scope, receive, send)


async def _check(scope: HTTPScope, receive: Receive, send: Send) -> bytes:
    content_type = header(scope, b"content-type")
    if content_type is not None and not is_json_media_type(content_type):
        raise UnsupportedMediaType(
            f"{scope['method']} {scope['path']} takes a JSON body: send it as `Content-Type: application/json` "
            f"(this one was {content_type!r:.80})."
        )
    body = await Request[Any, Any, Any](scope, receive, send).body()
    if content_type is None and body:
        raise UnsupportedMediaType(
            f"{scope['method']} {scope['path']} takes a JSON body: send it as `Content-Type: application/json` "
            "(this one had no Content-Type)."
        )
    if nests_deeper_than(body, MAX_JSON_DEPTH):
        raise BodyTooDeep(f"The body nests arrays and objects more than {MAX_JSON_DEPTH} levels deep.")
    return body
