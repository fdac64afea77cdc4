"""Signed tokens (OIDC-style JWTs): HS256 with a shared secret, RS256/ES256 with keys from a JWKS URL.

PyJWT does the cryptography and the claim checks. Keys from the JWKS URL are cached and fetched again
when a token names a key id the cache does not hold (key rotation), at most every 30 seconds after the
last fetch (PyJWT's cooldown), so that tokens with made-up key ids cannot turn this service into a load
on the identity provider; a newly published key is therefore accepted within 30 seconds.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import jwt

from api.auth.principal import Principal
from api.exceptions import ServiceUnavailable, TokenRejected

if TYPE_CHECKING:
    from api.auth.config import AuthConfig

__all__ = ("JwtVerifier",)

_LEEWAY_S = 10
"""Clock skew tolerated on ``exp``/``nbf``/``iat`` between the issuer and this service."""
_REFRESH_EVERY_S = 30
"""How soon after a fetch of the key set an unknown key id may make the service fetch it again."""
_FETCH_TIMEOUT_S = 5


class JwtVerifier:
    def __init__(self, config: AuthConfig) -> None:
        self._secret = config.jwt_secret
        self._jwks = (
            jwt.PyJWKClient(config.jwks_url, lifespan=300, timeout=_FETCH_TIMEOUT_S, cooldown_duration=_REFRESH_EVERY_S)
            if config.jwks_url
            else None
        )
        self._issuer = config.jwt_issuer
        self._audience = config.jwt_audience

    async def principal(self, token: str) -> Principal:
        """The token's subject, or ``TokenRejected`` with the reason."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError:
            raise TokenRejected("token_malformed", "The bearer token is not a JWT.") from None
        algorithm = header.get("alg")
        if algorithm == "HS256" and self._secret is not None:
            key: Any = self._secret
        elif algorithm in ("RS256", "ES256") and self._jwks is not None:
            key = await self._signing_key(token)
        else:
            raise TokenRejected("token_signature_invalid", "The bearer token's signing algorithm is not accepted here.")
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self._audience,
                issuer=self._issuer,
                leeway=_LEEWAY_S,
                options={"require": ["sub"], "verify_aud": self._audience is not None},
            )
        except jwt.PyJWTError as exc:
            raise _rejection(exc) from None
        return _principal(claims)

    async def _signing_key(self, token: str) -> Any:
        assert self._jwks is not None
        try:
            signing_key = await asyncio.to_thread(self._jwks.get_signing_key_from_jwt, token)
        except jwt.PyJWKClientConnectionError:
            raise ServiceUnavailable("The identity provider's keys cannot be fetched; try again shortly.") from None
        except (jwt.PyJWKClientError, jwt.DecodeError):
            raise TokenRejected("token_signature_invalid", "No published key matches the token's key id.") from None
        return signing_key.key


def _rejection(exc: jwt.PyJWTError) -> TokenRejected:
    if isinstance(exc, jwt.ExpiredSignatureError):
        return TokenRejected("token_expired", "The bearer token has expired.")
    if isinstance(exc, jwt.ImmatureSignatureError):
        return TokenRejected("token_not_yet_valid", "The bearer token is not valid yet.")
    if isinstance(exc, jwt.InvalidAudienceError) or _missing(exc, "aud"):
        return TokenRejected("token_audience_invalid", "The bearer token is not meant for this service.")
    if isinstance(exc, jwt.InvalidIssuerError) or _missing(exc, "iss"):
        return TokenRejected("token_issuer_invalid", "The bearer token's issuer is not one this service trusts.")
    if _missing(exc, "sub"):
        return TokenRejected("token_subject_missing", "The bearer token names no subject (`sub`).")
    if isinstance(exc, jwt.InvalidSignatureError | jwt.InvalidAlgorithmError):
        return TokenRejected("token_signature_invalid", "The bearer token's signature does not verify.")
    return TokenRejected("token_malformed", "The bearer token cannot be read.")


def _missing(exc: jwt.PyJWTError, claim: str) -> bool:
    return isinstance(exc, jwt.MissingRequiredClaimError) and exc.claim == claim


def _principal(claims: dict[str, Any]) -> Principal:
    subject, roles, account_id = claims["sub"], claims.get("roles", []), claims.get("account_id")
    if not isinstance(subject, str) or not subject:
        raise TokenRejected("token_subject_missing", "The bearer token's subject (`sub`) is empty.")
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise TokenRejected("token_malformed", "The bearer token's `roles` claim is not a list of strings.")
    if account_id is not None and not isinstance(account_id, str):
        raise TokenRejected("token_malformed", "The bearer token's `account_id` claim is not a string.")
    return Principal(subject=subject, roles=frozenset(roles), account_id=account_id)
