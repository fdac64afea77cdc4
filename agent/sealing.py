"""Sealing at rest: what a conversation leaves in the stores, under ``HARNESS_ENCRYPTION_KEY``.

A sealed value is AES-256-GCM (``cryptography``) behind a small header::

    0x00 0x01 | key id (4 bytes) | nonce (12 bytes) | ciphertext | tag (16 bytes)

- No plain value the stores hold starts with a zero byte (JSON, MessagePack arrays, SSE frames, text), so
  two bytes tell a sealed value from a plain one, and a plain one is refused wherever a key is set.
- The key id names the key without revealing it (an HMAC of a fixed label under it): a value sealed under an
  old key opens while that key is configured (``HARNESS_ENCRYPTION_OLD_KEYS``), and ``harness rotate-key``
  sees at once which values are not under the current key.
- The associated data (``where``) binds a value to its place, the run it belongs to, an event's seq, so a
  sealed value moved to another run or row fails its tag exactly as a changed one does.

The AES key is derived from the configured secret (HKDF-SHA256), never the secret itself, which the
checkpoints of earlier versions used directly (LangGraph's EAX cipher).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from agent.config import ConfigError
from agent.errors import AgentError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.config import AgentConfig
    from agent.encryption import EncryptionKey

__all__ = (
    "MAGIC",
    "PlainValueError",
    "SealError",
    "Sealer",
    "TamperedError",
    "UnknownKeyError",
    "is_sealed",
    "key_id",
    "place",
    "sealer_for",
)

MAGIC = b"\x00\x01"
"""A sealed value's first bytes: format 1."""
_KEY_ID = slice(2, 6)
_NONCE = slice(6, 18)
_BODY = 18
_NONCE_BYTES = 12


class SealError(AgentError, RuntimeError):
    """A stored value that must be sealed does not open. The message names the place, never the value."""


class PlainValueError(SealError):
    """A plain value where a key is set: written before the key (``harness rotate-key`` seals it), or planted."""


class UnknownKeyError(SealError):
    """A value sealed under a key that is not configured (neither the key nor one of the old keys)."""


class TamperedError(SealError):
    """A sealed value whose tag fails: changed, or moved from where it belongs."""


def is_sealed(value: bytes) -> bool:
    return value[:2] == MAGIC


def place(*parts: str | int) -> bytes:
    """Associated data naming where a value belongs, e.g. ``place("run", run_id)``."""
    return "\x00".join(map(str, parts)).encode()


def key_id(key: EncryptionKey) -> bytes:
    """Four bytes that name ``key`` in a sealed value's header: an HMAC, which says nothing of the key."""
    return hmac.new(key.secret, b"agent-harness key id", hashlib.sha256).digest()[:4]


def _aead(key: EncryptionKey) -> AESGCM:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"agent-harness seal v1").derive(key.secret)
    return AESGCM(derived)


class Sealer:
    """Seals under the current key; opens under it and the old ones.

    ``rotating``: opened by ``harness rotate-key``, which is there to seal plain values, so the stores' start
    check lets them be (every read still refuses them).
    """

    __slots__ = ("_aead", "_by_id", "_prefix", "keys", "rotating")

    def __init__(self, key: EncryptionKey, old_keys: Sequence[EncryptionKey] = (), *, rotating: bool = False) -> None:
        self.keys: tuple[EncryptionKey, ...] = (key, *(old for old in old_keys if old != key))
        """The current key first, then the old ones: every key a stored value may be sealed under."""
        self._by_id: dict[bytes, AESGCM] = {}
        for each in self.keys:
            if key_id(each) in self._by_id:
                raise ConfigError("two of the configured encryption keys share a key id: make a new key")
            self._by_id[key_id(each)] = _aead(each)
        self._prefix = MAGIC + key_id(key)
        self._aead = self._by_id[key_id(key)]
        self.rotating = rotating

    def __repr__(self) -> str:
        return f"Sealer(key id {key_id(self.keys[0]).hex()}, {len(self.keys) - 1} old)"

    def seal(self, data: bytes, where: bytes) -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        return self._prefix + nonce + self._aead.encrypt(nonce, data, where)

    def unseal(self, value: bytes, where: bytes) -> bytes:
        if value[:2] != MAGIC:
            raise PlainValueError(f"a plain value in {_named(where)} where HARNESS_ENCRYPTION_KEY is set")
        aead = self._by_id.get(value[_KEY_ID])
        if aead is None:
            raise UnknownKeyError(
                f"a value in {_named(where)} is sealed under a key that is not configured "
                "(neither HARNESS_ENCRYPTION_KEY nor one of HARNESS_ENCRYPTION_OLD_KEYS)"
            )
        try:
            return aead.decrypt(value[_NONCE], memoryview(value)[_BODY:], where)
        except InvalidTag:
            raise TamperedError(f"a sealed value in {_named(where)} fails its authentication tag") from None

    def reseal(self, value: bytes, where: bytes) -> bytes:
        """``value`` under the current key: a plain one sealed, one under an old key opened and sealed again."""
        return self.seal(self.unseal(value, where) if value[:2] == MAGIC else value, where)

    def is_current(self, value: bytes) -> bool:
        """Whether ``value`` is sealed under the current key (so ``harness rotate-key`` leaves it)."""
        return value[:6] == self._prefix

    def knows(self, value: bytes) -> bool:
        """Whether ``value`` is sealed under one of the configured keys (its tag unchecked)."""
        return value[:2] == MAGIC and value[_KEY_ID] in self._by_id


def sealer_for(config: AgentConfig, *, rotating: bool = False) -> Sealer | None:
    """The stores' sealer: None without ``HARNESS_ENCRYPTION_KEY``, and then nothing is sealed."""
    if config.encryption_key is None:
        return None
    return Sealer(config.encryption_key, config.old_encryption_keys, rotating=rotating)


def _named(where: bytes) -> str:
    return where.split(b"\x00", 1)[0].decode(errors="replace") or "a store"
