"""Whether the encryption key fits a store, and whether everything in it is sealed, checked when it opens.

Each store (an embedded SQLite file, the PostgreSQL database, the Redis prefix) keeps a small record sealed
with the key (the ``harness_key_check`` table, or a Redis key). The record says "every value here is sealed":
it is written only once no plain value is found, and only by a service that seals everything it writes. At
every start:

- a key, and a record: the record must open under the key or an old one (``HARNESS_ENCRYPTION_OLD_KEYS``),
  else the key is not the one the store was written with (``EncryptionKeyError``); then nothing is scanned;
- a key, and no record (or one from before everything was sealed, which proved the checkpoints' key only):
  one sealed value, if any, must be under a configured key; then the store is searched for a plain value,
  written before the key was set. One stops the start (``PlainValuesError``: ``harness rotate-key`` seals
  them); with none, the record is written;
- no key, and a record: sealed values need their key (``EncryptionKeyError``); when none is left (all
  purged), encryption was simply turned off, and the record goes.

So a wrong or missing key, or a store that is only partly sealed, stops the service at start with one line,
instead of failing turn by turn. The search for plain values reads the whole store, once: when a key is
first set, or the first time this version starts on a store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent.config import ConfigError
from agent.sealing import SealError, is_sealed, place

if TYPE_CHECKING:
    from agent.sealing import Sealer

__all__ = (
    "EVERYTHING_SEALED",
    "RECORD_TYPE",
    "EncryptionKeyError",
    "KeyCheckStore",
    "PlainValuesError",
    "check_key",
    "is_encrypted",
    "sealed_record",
)

EVERYTHING_SEALED = b"agent-harness key check: every value sealed"
"""What the record seals now."""
RECORD_TYPE = "sealed"
_WHERE = place("key check")


class EncryptionKeyError(ConfigError):
    """``HARNESS_ENCRYPTION_KEY`` does not fit what a store holds."""


class PlainValuesError(EncryptionKeyError):
    """A key is set and a store holds plain values, written before it was."""


class KeyCheckStore(Protocol):
    """A store, as the key check needs it."""

    where: str
    """The store, for messages: a file path, a URL without its password, a Redis prefix."""
    what: str
    """What it holds, for messages: ``checkpoints``, ``run events``, ``interactions``."""

    async def read_record(self) -> tuple[str, bytes] | None: ...

    async def write_record(self, record: tuple[str, bytes]) -> None:
        """Store ``record``, replacing the one there."""
        ...

    async def delete_record(self) -> None: ...

    async def one_encrypted_value(self) -> tuple[str, bytes] | None:
        """A stored value written sealed, or None: a checkpoint value (its type names a cipher), or any other
        as ``(RECORD_TYPE, sealed bytes)``."""
        ...

    async def one_plain_value(self) -> str | None:
        """What holds a value written plain (a table, a field), or None when every value is sealed."""
        ...


def is_encrypted(value_type: str) -> bool:
    """Whether a serialized value's type names a cipher (``msgpack+aesgcm``), as LangGraph's serializer reads it."""
    return "+" in value_type


def sealed_record(sealer: Sealer) -> tuple[str, bytes]:
    return RECORD_TYPE, sealer.seal(EVERYTHING_SEALED, _WHERE)


async def check_key(store: KeyCheckStore, sealer: Sealer | None) -> None:
    record = await store.read_record()
    if sealer is None:
        if record is None:
            return
        if await store.one_encrypted_value() is not None:
            raise EncryptionKeyError(
                f"the {store.what} in {store.where} are encrypted: set HARNESS_ENCRYPTION_KEY to the key they "
                "were written with"
            )
        await store.delete_record()
        return
    sealed = None
    if record is not None:
        if not _opens(sealer, record):
            raise _wrong_key(store)
        if _proves_everything_sealed(sealer, record):
            return
    else:
        sealed = await store.one_encrypted_value()
        if sealed is not None and not _opens(sealer, sealed):
            raise _wrong_key(store)
    if sealer.rotating:
        return  # `harness rotate-key` seals what is plain, then writes the record itself
    plain = await store.one_plain_value()
    if plain is not None:
        raise PlainValuesError(
            f"the {plain} in {store.where} hold values written before HARNESS_ENCRYPTION_KEY was set, which are "
            "refused with a key: run `harness rotate-key` (with the key set) to seal them"
        )
    if _under_current_key(sealer, record or sealed):
        await store.write_record(sealed_record(sealer))


def _opens(sealer: Sealer, value: tuple[str, bytes]) -> bool:
    """Whether ``value`` is sealed under a configured key (a record: and opens to what a record holds)."""
    value_type, data = value
    if value_type == RECORD_TYPE:
        return sealer.knows(data)
    if not is_encrypted(value_type):
        return False
    from agent.stores.sealed_serde import checkpoint_plaintext

    try:
        checkpoint_plaintext(sealer, value_type, data)
    except SealError:
        return False
    return True


def _proves_everything_sealed(sealer: Sealer, record: tuple[str, bytes]) -> bool:
    if record[0] != RECORD_TYPE:
        return False  # a record of an earlier version (LangGraph's cipher): the checkpoints' key, nothing more
    try:
        return sealer.unseal(record[1], _WHERE) == EVERYTHING_SEALED
    except SealError:
        return False


def _under_current_key(sealer: Sealer, value: tuple[str, bytes] | None) -> bool:
    """Whether a record written now may be sealed under the current key: a store whose values are under an old
    one keeps its record under that key until ``harness rotate-key`` has re-sealed them, so that the old key
    cannot be dropped before."""
    if value is None:
        return True
    value_type, data = value
    if value_type == RECORD_TYPE or value_type.endswith("+aesgcm"):
        return is_sealed(data) and sealer.is_current(data)
    return len(sealer.keys) == 1  # LangGraph's EAX values name no key: only a lone key is surely theirs


def _wrong_key(store: KeyCheckStore) -> EncryptionKeyError:
    return EncryptionKeyError(
        f"HARNESS_ENCRYPTION_KEY is not the key the {store.what} in {store.where} were encrypted with; start with "
        "that key (or, to rotate, name it in HARNESS_ENCRYPTION_OLD_KEYS), without it they cannot be read"
    )
