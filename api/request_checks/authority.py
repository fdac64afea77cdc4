"""Host names and origins in one canonical spelling, so that a configured name and a header compare equal.

Browsers serialize an ``Origin`` as ``scheme://host[:port]`` with the host in lower case, an IPv6 address in
brackets and the scheme's default port left out; a ``Host`` header is ``host[:port]``. Both are reduced here
to the same parts. Anything that does not parse is ``None``: to a check, a name it cannot read is foreign.
"""

from __future__ import annotations

import ipaddress
from typing import NamedTuple
from urllib.parse import urlsplit

__all__ = ("DEFAULT_PORTS", "Origin", "canonical_host", "parse_host_header", "parse_origin")

DEFAULT_PORTS = {"http": 80, "https": 443}


class Origin(NamedTuple):
    scheme: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return (
            f"{self.scheme}://{host}"
            if DEFAULT_PORTS[self.scheme] == self.port
            else f"{self.scheme}://{host}:{self.port}"
        )


def canonical_host(name: str) -> str | None:
    """``name`` as a bare host: lower case, no brackets around an IPv6 address, no final dot; ``None`` when it
    is not a host name or an IP address."""
    name = name.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    try:
        return ipaddress.ip_address(name).compressed
    except ValueError:
        pass
    name = name.removesuffix(".")
    labels = name.split(".")
    if not name or len(name) > 253 or not all(_is_label(label) for label in labels):
        return None
    return name


def parse_host_header(value: str) -> tuple[str, int | None] | None:
    """The host and the port (``None`` when the header names none) of a ``Host`` header."""
    if not value or any(c in value for c in "/?#@\\ \t"):
        return None
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None
    host = canonical_host(parts.hostname or "")
    return None if host is None else (host, port)


def parse_origin(value: str) -> Origin | None:
    """An ``Origin`` header (or a configured origin) as its parts; ``None`` for ``null`` or anything else that
    is not exactly ``http(s)://host[:port]``."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    host = canonical_host(parts.hostname or "")
    if host is None:
        return None
    return Origin(scheme, host, DEFAULT_PORTS[scheme] if port is None else port)


def _is_label(label: str) -> bool:
    return (
        0 < len(label) <= 63
        and label[0] != "-"
        and label[-1] != "-"
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in label)
    )
