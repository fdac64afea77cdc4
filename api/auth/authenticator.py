"""From an ``Authorization`` header to a ``Principal``: tokens from the tokens file first, then signed tokens.

The tokens file is read at start (a missing or malformed one stops the service) and again whenever it
changes or the process gets SIGHUP (``reload``): a token taken out of it is refused from then on. A file
that cannot be read then (half written, removed) changes nothing: the tokens read before stay in force and
the log says why, so an editor saving in place can never lock everyone out. Revoke every token with a file
of no tokens, not by removing it.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from agent import ConfigError, install_log_redaction
from api.auth.jwt_tokens import LEEWAY_S, JwtVerifier
from api.auth.tokens_file import TokensFile
from api.exceptions import TokenRejected

if TYPE_CHECKING:
    from pathlib import Path

    from api.auth.config import AuthConfig
    from api.auth.principal import Principal

__all__ = ("Authenticator",)

logger = logging.getLogger(__name__)

_FileState = tuple[int, int, int, int] | None
"""What tells a changed file: its inode, size, modification and change times; None while it cannot be read."""


class Authenticator:
    def __init__(self, config: AuthConfig) -> None:
        """Reads the tokens file now: a missing or malformed one stops the service at start (``ConfigError``)."""
        self._path = config.tokens_file
        self._seen = _state(self._path) if self._path else None
        self._tokens = TokensFile.load(self._path) if self._path else None
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

    def still_valid(self, principal: Principal, now: float) -> bool:
        """Whether the token ``principal`` was read from would still be taken at ``now`` (Unix seconds): a
        signed token until its ``exp`` (and the leeway) is past, a token of the tokens file while the file
        names it, for the same subject, roles and account."""
        if principal.expires_at is not None:
            return now < principal.expires_at + LEEWAY_S
        return self._tokens is not None and self._tokens.holds(principal)

    def reload_if_changed(self) -> bool:
        """Re-read the tokens file if it changed since it was last read; whether its tokens were replaced."""
        if self._path is None or _state(self._path) == self._seen:
            return False
        return self.reload("it changed")

    def reload(self, why: str) -> bool:
        """Re-read the tokens file; whether its tokens were replaced (not when it cannot be read)."""
        if self._path is None:
            return False
        self._seen = _state(self._path)
        try:
            tokens = TokensFile.load(self._path)
        except ConfigError as exc:
            logger.error("%s; the tokens read before stay in force", exc)
            return False
        known = set(self._tokens.plain_tokens) if self._tokens is not None else set()
        _mask_in_logs([token for token in tokens.plain_tokens if token not in known])
        self._tokens = tokens
        logger.info("HARNESS_AUTH_TOKENS_FILE re-read (%s): %d tokens", why, len(tokens))
        return True


def _state(path: Path) -> _FileState:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def _mask_in_logs(tokens: list[str]) -> None:
    """Have the log redaction of ``harness serve`` mask tokens the file names in plain text from now on, as it
    masks those read at start (``identity_secrets``); a process that masks nothing is left as it is."""
    if tokens and hasattr(logging.getLogRecordFactory(), "secrets"):
        install_log_redaction(tokens)
