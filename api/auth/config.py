"""Identity settings: the ``HARNESS_AUTH_*``, ``HARNESS_JWT_*`` and ``HARNESS_APPROVER_ROLE`` variables."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.config import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("AuthConfig",)


class AuthConfig(msgspec.Struct, frozen=True, kw_only=True):
    tokens_file: Path | None = None
    """A JSON file of bearer tokens and their subjects (``HARNESS_AUTH_TOKENS_FILE``)."""
    jwt_secret: str | None = None
    """The HS256 key of signed tokens (``HARNESS_JWT_SECRET``)."""
    jwks_url: str | None = None
    """Where the RS256/ES256 public keys of signed tokens are published (``HARNESS_JWT_JWKS_URL``)."""
    jwt_issuer: str | None = None
    """When set, a token must carry this ``iss`` (``HARNESS_JWT_ISSUER``)."""
    jwt_audience: str | None = None
    """When set, a token must carry this audience in ``aud`` (``HARNESS_JWT_AUDIENCE``)."""
    approver_role: str | None = None
    """When set, only subjects with this role decide approvals (``HARNESS_APPROVER_ROLE``); else each run's
    owner decides its own."""
    legacy_subject: str | None = None
    """Who owns the sessions and runs created while identity was off (``HARNESS_AUTH_LEGACY_SUBJECT``);
    unset, they belong to nobody once identity is on."""
    streams_per_subject: int = 20
    """Event streams one subject may hold open at once across the service (``HARNESS_STREAMS_PER_SUBJECT``)."""

    @property
    def enabled(self) -> bool:
        return any((self.tokens_file, self.jwt_secret, self.jwks_url))

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> AuthConfig:
        tokens_file = _optional(env, "HARNESS_AUTH_TOKENS_FILE")
        jwks_url = _optional(env, "HARNESS_JWT_JWKS_URL")
        if jwks_url is not None and not jwks_url.startswith(("https://", "http://")):
            raise ConfigError(f"HARNESS_JWT_JWKS_URL must be an http(s) URL, got {jwks_url!r}")
        streams = _optional(env, "HARNESS_STREAMS_PER_SUBJECT")
        try:
            streams_per_subject = 20 if streams is None else int(streams)
        except ValueError:
            raise ConfigError(f"HARNESS_STREAMS_PER_SUBJECT must be an integer, got {streams!r}") from None
        if streams_per_subject < 1:
            raise ConfigError(f"HARNESS_STREAMS_PER_SUBJECT must be at least 1, got {streams_per_subject}")
        return cls(
            tokens_file=Path(tokens_file) if tokens_file else None,
            jwt_secret=_optional(env, "HARNESS_JWT_SECRET"),
            jwks_url=jwks_url,
            jwt_issuer=_optional(env, "HARNESS_JWT_ISSUER"),
            jwt_audience=_optional(env, "HARNESS_JWT_AUDIENCE"),
            approver_role=_optional(env, "HARNESS_APPROVER_ROLE"),
            legacy_subject=_optional(env, "HARNESS_AUTH_LEGACY_SUBJECT"),
            streams_per_subject=streams_per_subject,
        )


def _optional(env: Mapping[str, str], name: str) -> str | None:
    return (env.get(name) or "").strip() or None
