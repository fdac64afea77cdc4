"""The encryption key (``HARNESS_ENCRYPTION_KEY``, and ``HARNESS_ENCRYPTION_OLD_KEYS`` while rotating) and the
checkpoints' serializer on it.

A key is 32 bytes (AES-256), given as 64 hex digits or in base64 (``openssl rand -base64 32``). With one,
both savers (SQLite and PostgreSQL) write every serialized value through LangGraph's ``EncryptedSerializer``
on the sealer of ``agent.sealing`` (AES-GCM with a key id, type ``<type>+aesgcm``), and read back only sealed
values: a value whose type names no cipher was written before the key was set, and is refused (``harness
rotate-key`` seals it). Values of earlier versions, sealed by LangGraph's own AES cipher (EAX, type
``<type>+aes``), still open under any configured key. Without a key nothing is encrypted.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import string
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

    from agent.sealing import Sealer

__all__ = ("KEY_BYTES", "EncryptionKey", "checkpoint_serde", "parse_key", "parse_keys")

KEY_BYTES = 32


class EncryptionKey:
    """An encryption key. Its ``repr`` never shows it, so a logged configuration cannot leak it."""

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


def parse_keys(raw: str) -> tuple[EncryptionKey, ...]:
    """Keys separated by commas (``HARNESS_ENCRYPTION_OLD_KEYS``), each as ``parse_key`` reads it; none when
    blank. The ``ValueError`` names the position of a malformed key, never its value."""
    written = [part for part in raw.split(",") if part.strip()]
    keys = []
    for position, part in enumerate(written, start=1):
        try:
            keys.append(parse_key(part))
        except ValueError as exc:
            raise ValueError(f"(key {position} of {len(written)}) {exc}") from None
    return tuple(keys)


def checkpoint_serde(sealer: Sealer | None) -> EncryptedSerializer | None:
    """The savers' serializer: LangGraph's encrypted one on ``sealer``, or None (their own, plain) without a key."""
    if sealer is None:
        return None
    from agent.stores.sealed_serde import sealed_serde

    return sealed_serde(sealer)
