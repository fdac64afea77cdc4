"""Encryption at rest of the checkpoints: the key (``HARNESS_ENCRYPTION_KEY``) and LangGraph's encrypted
serializer on it.

The key is 32 bytes (AES-256), given as 64 hex digits or in base64 (``openssl rand -base64 32``). With it,
both savers (SQLite and PostgreSQL) write every serialized value through LangGraph's ``EncryptedSerializer``
(AES in EAX mode: each value sealed with a fresh nonce and an authentication tag, so a wrong key is an
error, never garbage). Values written before the key was set stay readable: the serializer reads a value
whose type names no cipher as it was written. Without a key nothing is encrypted.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import string
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

__all__ = ("KEY_BYTES", "EncryptionKey", "checkpoint_serde", "parse_key")

KEY_BYTES = 32


class EncryptionKey:
    """The checkpoint key. Its ``repr`` never shows it, so a logged configuration cannot leak it."""

    __slots__ = ("_secret",)

    def __init__(self, secret: bytes) -> None:
        if len(secret) != KEY_BYTES:
            raise ValueError(f"an encryption key is {KEY_BYTES} bytes, not {len(secret)}")
        self._secret = secret

    @property
    def secret(self) -> bytes:
        return self._secret

    def __repr__(self) -> str:
        return "EncryptionKey(<hidden>)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EncryptionKey) and hmac.compare_digest(self._secret, other._secret)

    def __hash__(self) -> int:
        return hash((EncryptionKey, self._secret))


def parse_key(raw: str) -> EncryptionKey:
    """A key from 64 hex digits or base64 (standard or URL-safe, padding optional) of 32 bytes; whitespace is
    ignored. ``ValueError`` otherwise, with a message that never repeats the value."""
    compact = "".join(raw.split())
    if len(compact) == 2 * KEY_BYTES and all(c in string.hexdigits for c in compact):
        return EncryptionKey(bytes.fromhex(compact))
    standard = compact.replace("-", "+").replace("_", "/")
    try:
        secret = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        secret = b""
    if len(secret) != KEY_BYTES:
        raise ValueError(
            f"must be {KEY_BYTES} bytes as 64 hex digits or base64 (`openssl rand -base64 32`); "
            f"the value set ({len(compact)} characters) is neither"
        )
    return EncryptionKey(secret)


def checkpoint_serde(key: EncryptionKey | None) -> EncryptedSerializer | None:
    """The savers' serializer: LangGraph's AES one on ``key``, or None (their own, plain) without a key."""
    if key is None:
        return None
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

    return EncryptedSerializer.from_pycryptodome_aes(key=key.secret)
