"""Reading one request header straight from the ASGI scope, before Litestar has built a request object."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litestar.types import Scope

__all__ = ("header",)


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case), decoded as Latin-1 as HTTP headers are."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None
