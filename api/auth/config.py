"""Identity settings: the ``HARNESS_AUTH_*``, ``HARNESS_JWT_*`` and ``HARNESS_APPROVER_ROLE`` variables."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import msgspec

from agent import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("AuthConfig",)

_MIN_SECRET_BYTES = 32
"""The length of HS256's hash: RFC 7518 (3.2) asks for a key at least this long."""


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

    def check_signed_tokens(self) -> None:
        """Refuse JWT settings that would accept tokens they should not, with one line (``ConfigError``).

        Without an audience or an issuer to check, any token of the identity provider is taken, those it
        minted for other applications (and their roles) included; an HS256 secret shorter than the hash is
        within reach of a guess; keys fetched over plain http can be swapped on the way (loopback, where
        nothing is on the way, is allowed for tests).
        """
        if self.jwt_audience is None and self.jwt_issuer is None:
            given = "HARNESS_JWT_SECRET" if self.jwt_secret else "HARNESS_JWT_JWKS_URL"
            raise ConfigError(
                f"{given} is set but neither HARNESS_JWT_AUDIENCE nor HARNESS_JWT_ISSUER: set at least one, so "
                "that tokens minted for other applications are refused"
            )
        if self.jwt_secret is not None and len(self.jwt_secret.encode()) < _MIN_SECRET_BYTES:
            raise ConfigError(
                f"HARNESS_JWT_SECRET must be at least {_MIN_SECRET_BYTES} bytes long, got "
                f"{len(self.jwt_secret.encode())}: `openssl rand -base64 32` makes one"
            )
        if self.jwks_url is not None and not _fetched_safely(self.jwks_url):
            raise ConfigError(
                f"HARNESS_JWT_JWKS_URL must be an https URL (http only on loopback), got {self.jwks_url!r}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> AuthConfig:
        tokens_file = _optional(env, "HARNESS_AUTH_TOKENS_FILE")
        jwks_url = _optional(env, "HARNESS_JWT_JWKS_URL")
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


def _fetched_safely(url: str) -> bool:
    """Whether keys fetched from ``url`` reach this service as published: https, or http on loopback."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


def _optional(env: Mapping[str, str], name: str) -> str | None:
    return (env.get(name) or "").strip() or None
