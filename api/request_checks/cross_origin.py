"""Cross-origin requests: the service's own pages, the origins ``HARNESS_CORS_ORIGINS`` names, and no others.

A browser lets any page send a "simple" cross-origin request (a ``POST`` of ``text/plain`` or a form, no
preflight) and only hides the answer from it; the request itself still acts. So a state-changing request
(``POST``, ``PUT``, ``PATCH``, ``DELETE``) whose ``Origin`` is neither the service's own origin (the scheme it
was reached by, the ``Host`` it names) nor a configured one is refused with 403 before it acts. Clients that
are not browsers send no ``Origin`` and are not concerned. The check holds with identity on as well: a bearer
token is not sent by browsers on their own, but a proxy that turns a session cookie into one would be, and a
legitimate page of another origin must be listed anyway for the browser to let it read the answers.

CORS itself (the headers that let a listed origin's page read answers, and the preflight answer that lets it
send a token or a JSON body) is Litestar's ``CORSConfig``, applied here: its middleware would add
``Access-Control-*`` headers to every origin's answers and refuse a foreign preflight with a text/plain 400;
here a foreign origin gets no CORS header at all, and its preflight gets the route's plain ``OPTIONS`` answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar.config.cors import CORSConfig
from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.response.base import ASGIResponse

from agent import ConfigError
from api.exceptions import OriginNotAllowed
from api.request_checks._scope import header
from api.request_checks.authority import DEFAULT_PORTS, Origin, parse_host_header, parse_origin

if TYPE_CHECKING:
    from litestar.types import HTTPScope, Message, Receive, Scope, Send

__all__ = ("STATE_CHANGING_METHODS", "CorsHeaders", "CrossOriginCheck", "cors_config", "parse_cors_origins")

STATE_CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_ALLOWED_METHODS = ["GET", "POST", "DELETE"]
_ALLOWED_HEADERS = ["authorization", "content-type", "accept", "last-event-id", "x-api-key"]
_EXPOSED_HEADERS = ["Run-Id", "Session-Id", "Retry-After", "WWW-Authenticate", "Location", "Content-Location"]
"""``Location`` and ``Content-Location``: where the LangGraph SDKs reconnect a stream and read its run's id from."""


def parse_cors_origins(raw: str) -> tuple[str, ...]:
    """``HARNESS_CORS_ORIGINS``: comma-separated origins, each exactly ``http(s)://host[:port]``; no wildcards."""
    origins = []
    for entry in (part.strip() for part in raw.split(",")):
        if not entry:
            continue
        origin = parse_origin(entry)
        if origin is None:
            raise ConfigError(
                f"HARNESS_CORS_ORIGINS: {entry!r} is not an origin; list each page's origin as the browser sends "
                "it, scheme://host[:port] with no path and no wildcard, e.g. https://app.example.com"
            )
        origins.append(str(origin))
    return tuple(dict.fromkeys(origins))


def cors_config(origins: tuple[str, ...]) -> CORSConfig | None:
    """What a listed origin's pages may do: read answers and their run headers, send a token and JSON."""
    if not origins:
        return None
    return CORSConfig(
        allow_origins=list(origins),
        allow_methods=list(_ALLOWED_METHODS),  # type: ignore[arg-type]
        allow_headers=list(_ALLOWED_HEADERS),
        expose_headers=list(_EXPOSED_HEADERS),
        allow_credentials=False,  # bearer tokens, never cookies
    )


def _listed(config: CORSConfig | None) -> frozenset[Origin]:
    if config is None:
        return frozenset()
    return frozenset(origin for origin in map(parse_origin, config.allow_origins) if origin is not None)


class CrossOriginCheck:
    """Refuses a foreign origin's state-changing request (403); answers a listed origin's preflight."""

    def __init__(self, cors: CORSConfig | None) -> None:
        self._listed = _listed(cors)
        self._preflight = (
            {name: value for name, value in cors.preflight_headers.items() if name.startswith("Access-Control-")}
            if cors
            else {}
        )

    async def answered(self, scope: HTTPScope, receive: Receive, send: Send) -> bool:
        """Whether the request was a listed origin's preflight, answered here; raises when it may not act."""
        value = header(scope, b"origin")
        if value is None:
            return False
        method = scope["method"]
        if method == "OPTIONS" and self._preflight and header(scope, b"access-control-request-method"):
            if parse_origin(value) in self._listed:
                await ASGIResponse(status_code=204, headers=self._preflight)(scope, receive, send)
                return True
        elif method in STATE_CHANGING_METHODS and not self._may_act(scope, value):
            raise OriginNotAllowed(
                f"A page of the origin {value!r:.100} may not {method} here: only the service's own pages and "
                "the origins its operator lists in HARNESS_CORS_ORIGINS may."
            )
        return False

    def _may_act(self, scope: Scope, value: str) -> bool:
        origin = parse_origin(value)
        if origin is None:
            return False  # `null` (a sandboxed frame, a file, a redirect across origins) or garbage
        if origin in self._listed:
            return True
        authority = parse_host_header(header(scope, b"host") or "")
        scheme = scope["scheme"]
        if authority is None or scheme not in DEFAULT_PORTS:
            return False
        host, port = authority
        return origin == Origin(scheme, host, DEFAULT_PORTS[scheme] if port is None else port)


class CorsHeaders:
    """A before-send hook: the ``Access-Control-*`` headers on every answer (errors included) to a listed origin."""

    def __init__(self, cors: CORSConfig) -> None:
        self._listed = _listed(cors)
        self._headers = cors.simple_headers

    async def __call__(self, message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start" or scope["type"] != ScopeType.HTTP:
            return
        value = header(scope, b"origin")
        if value is None or parse_origin(value) not in self._listed:
            return
        message.setdefault("headers", [])
        headers = MutableScopeHeaders.from_message(message)
        headers["Access-Control-Allow-Origin"] = value
        headers.add("Vary", "Origin")
        for name, header_value in self._headers.items():
            headers[name] = header_value
