"""The checkpoints' serializer with a key: LangGraph's ``EncryptedSerializer`` on the sealer, refusing plain values.

LangGraph's own serializer reads a value whose type names no cipher as plain, which would let a value written
before the key was set (or planted in the store) into the graph unnoticed; this one raises
``PlainValueError`` instead. Checkpoint values carry no place (LangGraph's cipher interface passes the bytes
alone), so their associated data is one constant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

from agent.sealing import PlainValueError, TamperedError, UnknownKeyError, place

if TYPE_CHECKING:
    from agent.sealing import Sealer

__all__ = ("CIPHER", "SealedSerializer", "checkpoint_plaintext", "reseal_checkpoint_value", "sealed_serde")

CIPHER = "aesgcm"
"""The cipher name in a sealed checkpoint value's type (``msgpack+aesgcm``)."""
_LEGACY_CIPHER = "aes"
"""LangGraph's EAX cipher on the key itself, which earlier versions wrote."""
_WHERE = place("checkpoint")


class SealCipher:
    """LangGraph's ``CipherProtocol`` on a sealer."""

    def __init__(self, sealer: Sealer) -> None:
        self.sealer = sealer

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return CIPHER, self.sealer.seal(plaintext, _WHERE)

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        if ciphername == CIPHER:
            return self.sealer.unseal(ciphertext, _WHERE)
        if ciphername == _LEGACY_CIPHER:
            return _open_legacy(self.sealer, ciphertext)
        raise UnknownKeyError(f"a checkpoint value sealed with a cipher this service does not know ({ciphername!r})")


class SealedSerializer(EncryptedSerializer):
    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        if "+" not in data[0]:
            raise PlainValueError("a plain checkpoint value where HARNESS_ENCRYPTION_KEY is set")
        return super().loads_typed(data)


def sealed_serde(sealer: Sealer) -> SealedSerializer:
    return SealedSerializer(SealCipher(sealer))


def checkpoint_plaintext(sealer: Sealer, value_type: str, data: bytes) -> tuple[str, bytes]:
    """A stored checkpoint value's serializer type and bytes, opened if it is sealed (``harness rotate-key``)."""
    if "+" not in value_type:
        return value_type, data
    inner, ciphername = value_type.split("+", 1)
    return inner, SealCipher(sealer).decrypt(ciphername, data)


def reseal_checkpoint_value(sealer: Sealer, value_type: str, data: bytes) -> tuple[str, bytes] | None:
    """A stored checkpoint value's type and bytes under the current key, or None when it is under it already."""
    if value_type.endswith(f"+{CIPHER}") and sealer.is_current(data):
        return None
    inner, plaintext = checkpoint_plaintext(sealer, value_type, data)
    ciphername, sealed = SealCipher(sealer).encrypt(plaintext)
    return f"{inner}+{ciphername}", sealed


def _open_legacy(sealer: Sealer, data: bytes) -> bytes:
    """A value LangGraph's EAX cipher sealed: its tag tells which configured key, if any, it was sealed under."""
    from Crypto.Cipher import AES

    nonce, tag, body = data[:16], data[16:32], data[32:]
    for key in sealer.keys:
        try:
            return bytes(AES.new(key.secret, AES.MODE_EAX, nonce=nonce).decrypt_and_verify(body, tag))
        except ValueError:
            continue
    raise TamperedError("a checkpoint value of an earlier version opens under none of the configured keys")
