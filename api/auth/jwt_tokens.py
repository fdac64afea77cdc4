"""Signed tokens (OIDC-style JWTs): HS256 with a shared secret, RS256/ES256 with keys from a JWKS URL.

PyJWT does the cryptography and the claim checks; ``JwksKeys`` fetches and caches the published keys. A
token must name its subject (``sub``) and expire (``exp``), and carry the audience and the issuer that are
configured; the service refuses to start unless at least one of the two is, so that a token the same
identity provider minted for another application is never taken for one of this service's. Whatever is
wrong with a token, its shape, its claims or its key, the answer is a ``401``; only a provider whose keys
cannot be fetched is a ``503``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import jwt

from api.auth.jwks import JwksKeys
from api.auth.principal import Principal
from api.auth.tokens_file import digest
from api.exceptions import TokenRejected

if TYPE_CHECKING:
    from api.auth.config import AuthConfig

__all__ = ("LEEWAY_S", "JwtVerifier")

LEEWAY_S = 5
"""Clock skew tolerated on ``exp``/``nbf``/``iat`` between the issuer and this service; a stream of a token
ends when its ``exp`` is this far behind (so a reconnect gets the ``401`` the stream's end announced)."""


class JwtVerifier:
    def __init__(self, config: AuthConfig) -> None:
        """Refuses (``ConfigError``) settings that would accept tokens they should not."""
        config.check_signed_tokens()
        self._secret = config.jwt_secret
        self._jwks = JwksKeys(config.jwks_url) if config.jwks_url else None
        self._issuer = config.jwt_issuer
        self._audience = config.jwt_audience

    async def principal(self, token: str) -> Principal:
        """The token's subject, or ``TokenRejected`` with the reason."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenRejected("token_malformed", "The bearer token is not a JWT.") from None
        algorithm = header.get("alg")
        if algorithm == "HS256" and self._secret is not None:
            key: Any = self._secret
        elif algorithm in ("RS256", "ES256") and self._jwks is not None:
            key = await self._jwks.key(header.get("kid"), algorithm)
        else:
            raise TokenRejected("token_signature_invalid", "The bearer token's signing algorithm is not accepted here.")
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self._audience,
                issuer=self._issuer,
                leeway=LEEWAY_S,
                options={"require": ["sub", "exp"], "verify_aud": self._audience is not None},
            )
        except jwt.PyJWTError as exc:
            raise _rejection(exc) from None
        except (TypeError, ValueError):  # a key PyJWT cannot use for this algorithm
            raise TokenRejected("token_signature_invalid", "The bearer token cannot be checked with its key.") from None
        return _principal(claims, token)


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
    if _missing(exc, "exp"):
        return TokenRejected("token_malformed", "The bearer token never expires (no `exp`); it is not accepted.")
    if isinstance(exc, jwt.InvalidSignatureError | jwt.InvalidAlgorithmError | jwt.InvalidKeyError):
        return TokenRejected("token_signature_invalid", "The bearer token's signature does not verify.")
    return TokenRejected("token_malformed", "The bearer token cannot be read.")


def _missing(exc: jwt.PyJWTError, claim: str) -> bool:
    return isinstance(exc, jwt.MissingRequiredClaimError) and exc.claim == claim


def _principal(claims: dict[str, Any], token: str) -> Principal:
    subject, roles, account_id = claims["sub"], claims.get("roles", []), claims.get("account_id")
    if not isinstance(subject, str) or not subject:
        raise TokenRejected("token_subject_missing", "The bearer token's subject (`sub`) is empty.")
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise TokenRejected("token_malformed", "The bearer token's `roles` claim is not a list of strings.")
    if account_id is not None and not isinstance(account_id, str):
        raise TokenRejected("token_malformed", "The bearer token's `account_id` claim is not a string.")
    return Principal(
        subject=subject,
        roles=frozenset(roles),
        account_id=account_id,
        credential=digest(token),
        expires_at=_seconds(claims["exp"]),
    )


def _seconds(exp: object) -> float:
    """``exp`` as a float (PyJWT has checked that it reads as an integer); one too far to write is never."""
    try:
        return float(exp if isinstance(exp, int | float) else int(str(exp)))
    except OverflowError:
        return math.inf
