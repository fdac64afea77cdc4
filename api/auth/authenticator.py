"""From an ``Authorization`` header to a ``Principal``: tokens from the tokens file first, then signed tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.auth.jwt_tokens import JwtVerifier
from api.auth.tokens_file import TokensFile
from api.exceptions import TokenRejected

if TYPE_CHECKING:
    from api.auth.config import AuthConfig
    from api.auth.principal import Principal

__all__ = ("Authenticator",)


class Authenticator:
    def __init__(self, config: AuthConfig) -> None:
        """Reads the tokens file now: a missing or malformed one stops the service at start (``ConfigError``)."""
        self._tokens = TokensFile.load(config.tokens_file) if config.tokens_file else None
        self._jwt = JwtVerifier(config) if config.jwt_secret or config.jwks_url else None

    async def principal(self, authorization: str | None) -> Principal:
        if not authorization:
            raise TokenRejected("token_missing", "This service needs `Authorization: Bearer <token>`.")
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or " " in token:
            raise TokenRejected("token_malformed", "The Authorization header must be `Bearer <token>`.")
        if self._tokens is not None and (principal := self._tokens.principal(token)) is not None:
            return principal
        if self._jwt is not None and token.count(".") == 2:
            return await self._jwt.principal(token)
        raise TokenRejected("token_unknown", "The bearer token is not one this service knows.")
