"""Who is asking: the subject behind a request's bearer token, or nobody in particular when identity is off."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ("ANONYMOUS", "Principal")


class Principal(msgspec.Struct, frozen=True, kw_only=True):
    subject: str | None
    """The token's subject (``sub``); None only for ``ANONYMOUS``."""
    roles: frozenset[str] = frozenset()
    account_id: str | None = None
    """The account "my account" and "my invoice" mean for this subject."""
    credential: str | None = None
    """The SHA-256 (hex) of the bearer token this principal was read from: what ties an open stream to its
    token when the token is revoked. Never the token itself."""
    expires_at: float | None = None
    """When the token stops being valid (a JWT's ``exp``, Unix seconds); None: when it is revoked."""
    user: dict[str, Any] | None = None
    """What langgraph.json's ``@auth.authenticate`` said of the caller (``identity``, ``permissions`` and its own
    fields), given to the graph runs it starts as ``configurable["langgraph_auth_user"]``, as the Agent Server
    does; None with the service's own identity. (Such a principal has no ``credential``: it is never hashed.)"""

    @property
    def anonymous(self) -> bool:
        return self.subject is None


ANONYMOUS = Principal(subject=None)
"""The one user of a service with identity off: it owns everything and decides everything."""
