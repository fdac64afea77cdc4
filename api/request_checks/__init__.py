"""Checks every request passes before a route reads it: who it is addressed to, which page sent it, its body.

In the order they run: the ``Host`` check (``HARNESS_ALLOWED_HOSTS``, 421) and the cross-origin check (a
foreign ``Origin`` may not change anything, 403; a listed one's preflight is answered) come before identity,
so a browser's preflight, which never carries a token, is answered; the JSON body check (415 for another media
type, 422 for a body nested too deep) comes after identity and before the rate limit, so a refused body
costs no turn; it wraps only the routes that read a body (``takes_body``), and reads it within
``HARNESS_REQUEST_READ_TIMEOUT_S`` (408), as the server reads every request's headers (``read_deadline``).
``HARNESS_CORS_ORIGINS`` adds the CORS headers to every answer to a listed origin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar.middleware import DefineMiddleware

from api.request_checks.allowed_hosts import AllowedHosts, HostCheck
from api.request_checks.cross_origin import CorsHeaders, CrossOriginCheck, cors_config
from api.request_checks.json_bodies import JsonBodyCheck, takes_body
from api.request_checks.read_deadline import with_header_deadline
from api.request_checks.site import SiteChecks

if TYPE_CHECKING:
    from litestar.types import BeforeMessageSendHookHandler

__all__ = ("body_checks", "cors_response_headers", "site_checks", "takes_body", "with_header_deadline")


def site_checks(*, hosts_allowed: tuple[str, ...], cors_origins: tuple[str, ...]) -> list[DefineMiddleware]:
    """The middleware that runs before identity: the ``Host``, then the ``Origin``."""
    hosts, origins = HostCheck(AllowedHosts(hosts_allowed)), CrossOriginCheck(cors_config(cors_origins))
    return [DefineMiddleware(SiteChecks, hosts=hosts, origins=origins)]


def body_checks(*, read_timeout_s: float) -> list[DefineMiddleware]:
    """The middleware that runs after identity on the routes that read a body (``takes_body``): their body, read
    within ``read_timeout_s`` (``read_deadline``)."""
    return [DefineMiddleware(JsonBodyCheck, read_timeout_s=read_timeout_s)]


def cors_response_headers(cors_origins: tuple[str, ...]) -> list[BeforeMessageSendHookHandler]:
    """The before-send hooks adding CORS headers for the listed origins (none when none are listed)."""
    cors = cors_config(cors_origins)
    return [] if cors is None else [CorsHeaders(cors)]
