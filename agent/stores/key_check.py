"""Whether the encryption key fits the stored checkpoints, checked when the stores open.

A small record, sealed with the key when encryption is first used, stays next to the checkpoints (the
``harness_key_check`` table). At every start:

- a key, and a record: the record must open with it, else the key is not the one the checkpoints were
  written with (``EncryptionKeyError``);
- a key, and no record yet: one stored encrypted value, if any, must decrypt with it (data sealed before the
  record existed); then the record is written;
- no key, and a record: sealed checkpoints need their key (``EncryptionKeyError``); when none is left (all
  purged), encryption was simply turned off, and the record goes.

So a wrong or missing key stops the service at start with one line, instead of failing turn by turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent.config import ConfigError
from agent.encryption import checkpoint_serde

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

    from agent.encryption import EncryptionKey

__all__ = ("KEY_CHECK_VALUE", "EncryptionKeyError", "KeyCheckStore", "check_key", "is_encrypted")

KEY_CHECK_VALUE = "agent-harness checkpoint key check"
"""What the record seals: opening it to this value proves the key."""


class EncryptionKeyError(ConfigError):
    """``HARNESS_ENCRYPTION_KEY`` does not fit the stored checkpoints."""


class KeyCheckStore(Protocol):
    """Where the checkpoints are, as the key check needs them."""

    where: str
    """The store, for messages: a file path, or a URL without its password."""

    async def read_record(self) -> tuple[str, bytes] | None: ...

    async def write_record(self, record: tuple[str, bytes]) -> None:
        """Store ``record`` unless one is there already (another instance may have been first)."""
        ...

    async def delete_record(self) -> None: ...

    async def one_encrypted_value(self) -> tuple[str, bytes] | None:
        """A stored checkpoint value written encrypted (its type names a cipher), or None."""
        ...


def is_encrypted(value_type: str) -> bool:
    """Whether a serialized value's type names a cipher (``msgpack+aes``), as LangGraph's serializer reads it."""
    return "+" in value_type


async def check_key(store: KeyCheckStore, key: EncryptionKey | None) -> None:
    record = await store.read_record()
    if key is None:
        if record is None:
            return
        if await store.one_encrypted_value() is not None:
            raise EncryptionKeyError(
                f"the checkpoints in {store.where} are encrypted: set HARNESS_ENCRYPTION_KEY to the key they "
                "were written with"
            )
        await store.delete_record()
        return
    serde = checkpoint_serde(key)
    assert serde is not None, "a key gives an encrypting serializer"
    if record is None:
        sealed = await store.one_encrypted_value()
        if sealed is not None and not _opens(serde, sealed):
            raise _wrong_key(store)
        await store.write_record(serde.dumps_typed(KEY_CHECK_VALUE))
        record = await store.read_record()
        assert record is not None, "the record was just written"
    if not _opens(serde, record) or serde.loads_typed(record) != KEY_CHECK_VALUE:
        raise _wrong_key(store)


def _opens(serde: EncryptedSerializer, value: tuple[str, bytes]) -> bool:
    value_type, data = value
    if not is_encrypted(value_type):
        return False
    try:
        serde.cipher.decrypt(value_type.split("+", 1)[1], data)
    except (ValueError, AssertionError):  # a failed authentication tag; a cipher it does not know
        return False
    return True


def _wrong_key(store: KeyCheckStore) -> EncryptionKeyError:
    return EncryptionKeyError(
        f"HARNESS_ENCRYPTION_KEY is not the key the checkpoints in {store.where} were encrypted with; start with "
        "that key (without it they cannot be read)"
    )
