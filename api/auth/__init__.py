"""Identity: who a request comes from (bearer tokens, signed tokens), and keeping that true while it streams."""

from __future__ import annotations

from api.auth.config import AuthConfig
from api.auth.principal import ANONYMOUS, Principal
from api.auth.tokens_file import TokensFile

__all__ = ("ANONYMOUS", "AuthConfig", "Principal", "identity_secrets")


def identity_secrets(config: AuthConfig) -> list[str]:
    """The identity settings' secrets (the JWT key, plain tokens of the tokens file), for the log redaction."""
    found = [config.jwt_secret] if config.jwt_secret else []
    if config.tokens_file is not None:
        found += TokensFile.load(config.tokens_file).plain_tokens
    return found
