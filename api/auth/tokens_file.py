"""Bearer tokens from a file, for small deployments and tests: each token (or its SHA-256) names a subject.

    {"tokens": [{"token": "…", "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
                {"token_sha256": "<hex digest>", "subject": "carol", "roles": ["approver"]}]}

Requests are matched by the digest of their token. The plain tokens a file holds are also handed to the
log redaction (``identity_secrets``), so that no log line can ever carry one; a file of digests alone keeps
no token in the process at all.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Annotated

import msgspec

from agent import ConfigError
from api.auth.principal import Principal

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ("TokensFile", "digest")

_HEX_SHA256 = r"^[0-9a-f]{64}$"


class _Entry(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    token: Annotated[str, msgspec.Meta(min_length=16)] | None = None
    token_sha256: Annotated[str, msgspec.Meta(pattern=_HEX_SHA256)] | None = None
    subject: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    roles: list[str] = msgspec.field(default_factory=list)
    account_id: str | None = None


class _File(msgspec.Struct, forbid_unknown_fields=True):
    tokens: list[_Entry]


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokensFile:
    def __init__(self, principals: dict[str, Principal], plain: list[str]) -> None:
        self._by_digest = principals
        self.plain_tokens = plain
        """The tokens the file names in plain text (not its digests), for the log redaction."""

    @classmethod
    def load(cls, path: Path) -> TokensFile:
        """Read ``path``; a missing or malformed file is a ``ConfigError`` naming it and what is wrong."""
        where = f"HARNESS_AUTH_TOKENS_FILE ({path})"
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ConfigError(f"{where} cannot be read: {exc.strerror or exc}") from None
        try:
            parsed = msgspec.json.decode(raw, type=_File)
        except msgspec.DecodeError as exc:
            raise ConfigError(f"{where} is not a valid tokens file: {exc}") from None
        principals: dict[str, Principal] = {}
        for number, entry in enumerate(parsed.tokens, start=1):
            if (entry.token is None) == (entry.token_sha256 is None):
                raise ConfigError(f"{where}: entry {number} needs exactly one of `token` and `token_sha256`")
            key = entry.token_sha256 or digest(entry.token or "")
            if key in principals:
                raise ConfigError(f"{where}: entry {number} repeats a token")
            principals[key] = Principal(
                subject=entry.subject, roles=frozenset(entry.roles), account_id=entry.account_id, credential=key
            )
        return cls(principals, [entry.token for entry in parsed.tokens if entry.token is not None])

    def __len__(self) -> int:
        return len(self._by_digest)

    def principal(self, token: str) -> Principal | None:
        return self._by_digest.get(digest(token))

    def holds(self, principal: Principal) -> bool:
        """Whether this file still names ``principal``'s token, for the same subject, roles and account."""
        return principal.credential is not None and self._by_digest.get(principal.credential) == principal
