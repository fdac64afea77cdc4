"""The ``Host`` check: a request must name this service, not a name some page resolved to its address.

A DNS-rebinding page is served from a name of its own, which it then points at the service's address: the
browser treats the service as that page's own origin and lets the page read every answer. The one thing such
a request cannot hide is its ``Host`` header, which names the page's domain, so a ``Host`` outside
``HARNESS_ALLOWED_HOSTS`` is refused (421) before any route runs. Ports do not matter: the name does.
Litestar's ``AllowedHostsConfig`` compares the whole header, port included, answers a bare 400 that is not
problem+json, and redirects ``www.`` names, so the check is this small one instead (``SiteChecks`` runs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import ConfigError
from api.exceptions import HostNotAllowed
from api.request_checks._scope import header
from api.request_checks.authority import canonical_host, parse_host_header

if TYPE_CHECKING:
    from collections.abc import Iterable

    from litestar.types import HTTPScope

__all__ = ("LOOPBACK_HOSTS", "AllowedHosts", "HostCheck", "default_allowed_hosts", "parse_allowed_hosts")

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
_WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::"})
_MAX_REMEMBERED = 1024


def parse_allowed_hosts(raw: str) -> tuple[str, ...]:
    """``HARNESS_ALLOWED_HOSTS``: comma-separated host names or IP addresses, ``*.example.com`` for every
    subdomain of a name, or ``*`` alone for any host (the check off)."""
    names = []
    for entry in (part.strip() for part in raw.split(",")):
        if not entry:
            continue
        wildcard = entry.startswith("*.")
        name = "*" if entry == "*" else canonical_host(entry[2:] if wildcard else entry)
        if name is None:
            raise ConfigError(
                f"HARNESS_ALLOWED_HOSTS: {entry!r} is not a host name; list names such as harness.example.com or "
                "127.0.0.1, without a scheme or a port (`*.example.com` for its subdomains, `*` for any host)"
            )
        names.append(f"*.{name}" if wildcard else name)
    if not names:
        raise ConfigError(f"HARNESS_ALLOWED_HOSTS names no host ({raw!r}); unset it for the default")
    return tuple(dict.fromkeys(names))


def default_allowed_hosts(bind_host: str) -> tuple[str, ...]:
    """The loopback names and the address ``harness serve`` binds, unless that is a wildcard (``0.0.0.0``),
    which says nothing about the names clients use."""
    bound = canonical_host(bind_host)
    return (
        LOOPBACK_HOSTS if bound is None or bound in _WILDCARD_BINDS else tuple(dict.fromkeys((*LOOPBACK_HOSTS, bound)))
    )


class AllowedHosts:
    """Whether a ``Host`` header names one of ``names`` (any port)."""

    def __init__(self, names: Iterable[str]) -> None:
        names = tuple(names)
        self.names = names
        self._any = "*" in names
        self._exact = frozenset(name for name in names if not name.startswith("*."))
        self._suffixes = tuple(name[1:] for name in names if name.startswith("*."))
        self._judged: dict[str, bool] = {}

    def admits(self, host_header: str | None) -> bool:
        if self._any:
            return True
        if host_header is None:
            return False
        judged = self._judged.get(host_header)
        if judged is None:
            judged = self._judge(host_header)
            if len(self._judged) < _MAX_REMEMBERED:  # a client may send any number of distinct headers
                self._judged[host_header] = judged
        return judged

    def _judge(self, host_header: str) -> bool:
        parsed = parse_host_header(host_header)
        if parsed is None:
            return False
        host = parsed[0]
        return host in self._exact or any(host.endswith(suffix) for suffix in self._suffixes)


class HostCheck:
    """A request whose ``Host`` is not allowed gets 421 problem+json and reaches no route."""

    def __init__(self, hosts: AllowedHosts) -> None:
        self._hosts = hosts

    def check(self, scope: HTTPScope) -> None:
        host = header(scope, b"host")
        if not self._hosts.admits(host):
            raise HostNotAllowed(
                f"This service does not answer for the host {host!r:.80}. Its operator lists the names clients "
                "use in HARNESS_ALLOWED_HOSTS; behind a reverse proxy, the proxy must pass the public Host on."
                if host
                else "The request names no host (no Host header); this service answers only for its own names."
            )
