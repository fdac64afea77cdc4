"""Where a delivery may go: an http(s) URL whose host ``HARNESS_WEBHOOK_ALLOWED_HOSTS`` names, checked when the run
is asked for (``check_url``, a 422), and, at each attempt, the addresses its name resolves to (``resolve``): a
loopback, private, link-local or otherwise not public address is called only if that very address is listed, so an
allowed name that points at 169.254.169.254 (a cloud's metadata service) or at the service's own network is not
called. The attempt connects to the address checked (the name goes in ``Host`` and TLS's server name), so the name
cannot resolve elsewhere between the check and the call.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agent import carries_personal_data
from api.webhooks.errors import WebhookNotAllowed

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ("Target", "TargetRefused", "check_url", "resolve", "webhook_pattern")

_SETTING = "HARNESS_WEBHOOK_ALLOWED_HOSTS"


class TargetRefused(Exception):
    """An attempt not made: the URL or the address its host resolves to is not allowed (final), or the name does not
    resolve (``retryable``)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class Target:
    """A URL checked: its parts, and (once resolved) the address to connect to."""

    def __init__(self, url: str, scheme: str, host: str, port: int) -> None:
        self.url = url
        self.scheme = scheme
        self.host = host
        self.port = port


def parse(url: str, allowed: Collection[str]) -> Target:
    """``url`` if it may be called, else ``TargetRefused`` saying why."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise TargetRefused(f"webhook {url!r} is not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("webhook must be an http or https URL with a host")
    host = parts.hostname.lower()
    if not allowed:
        raise TargetRefused(f"webhooks are off: {_SETTING} names no host")
    if host not in allowed:
        raise TargetRefused(f"webhook host {host!r} is not one of {_SETTING}")
    return Target(url, parts.scheme, host, port or (443 if parts.scheme == "https" else 80))


def check_url(url: str, allowed: Collection[str]) -> None:
    """Refuse (422 ``webhook_not_allowed``) a ``webhook`` that is not an http(s) URL of an allowed host: exactly the
    URLs ``webhook_pattern`` does not match, the rule the OpenAPI document the service serves states."""
    pattern = webhook_pattern(allowed)
    if pattern is None:
        raise WebhookNotAllowed(f"Webhooks are off: {_SETTING} names no host.")
    if re.fullmatch(pattern, url) is None:
        raise WebhookNotAllowed(
            f"webhook must be an http or https URL (no user, a port up to 65535, printable ASCII) whose host is one "
            f"of {_SETTING}: {', '.join(sorted(allowed))}."
        )
    try:
        parse(url, allowed)
    except TargetRefused as exc:  # not expected once the pattern matched
        raise WebhookNotAllowed(f"{exc} (the hosts a webhook may name are set by {_SETTING}).") from None
    if carries_personal_data(url):  # the URL is kept with the run and sent on: never a planted personal number
        raise WebhookNotAllowed(
            "webhook holds what reads as a card number, bank account, national id or key, which is never stored "
            f"or sent; name the receiver by a path of its own (its host stays one of {_SETTING})."
        )


_PORT = r"(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?"
_REST = r"(?:[/?#][!-~]*)?"


def webhook_pattern(allowed: Collection[str]) -> str | None:
    """The URLs a ``webhook`` may be, as a regular expression that Python and JSON Schema (ECMA 262) read alike:
    ``http`` or ``https``, a listed host in any case (an IPv6 address in brackets), an optional port, then a path,
    query or fragment of printable ASCII. None: no host is listed, no URL is."""
    if not allowed:
        return None
    hosts = "|".join((r"\[" + _any_case(host) + r"\]") if ":" in host else _any_case(host) for host in sorted(allowed))
    return f"^https?://(?:{hosts}){_PORT}{_REST}$"


_SPECIAL = frozenset(".[]()*+?{}|^$\\/")


def _any_case(host: str) -> str:
    """``host`` as a pattern matching it in any case (hosts are compared without case)."""
    return "".join(
        f"[{ch.lower()}{ch.upper()}]" if ch.isascii() and ch.isalpha() else ("\\" + ch if ch in _SPECIAL else ch)
        for ch in host
    )


async def resolve(target: Target, allowed: Collection[str]) -> str:
    """The address to connect to for ``target``: its first address, when every address it resolves to is public or
    listed in ``allowed`` itself."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            target.host, target.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except OSError as exc:
        raise TargetRefused(f"webhook host {target.host!r} does not resolve: {exc}", retryable=True) from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise TargetRefused(f"webhook host {target.host!r} resolves to no address", retryable=True)
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if not ip.is_global and address.lower() not in allowed and str(ip) not in allowed:
            raise TargetRefused(
                f"webhook host {target.host!r} resolves to {address}, which is not public; list that address in "
                f"{_SETTING} to call it"
            )
    return addresses[0]
