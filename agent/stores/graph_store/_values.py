"""A stored value at rest: sealed with the service's sealer when ``HARNESS_ENCRYPTION_KEY`` is set.

LangGraph's stores keep a value as a JSON object (``TEXT`` in SQLite, ``JSONB`` in PostgreSQL), so a sealed
value is the JSON object ``{"__sealed__": "<base64 of the sealed JSON>"}``. Its associated data names the
subject, the namespace and the key, so a sealed value copied to another subject's item, or another key, fails
its tag as a changed one does. A plain value where a key is set is refused on read (``PlainValueError``), as the
other stores refuse one.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

import msgspec

from agent.sealing import PlainValueError, place

if TYPE_CHECKING:
    from agent.sealing import Sealer

__all__ = ("SEALED_FIELD", "open_value", "seal_value")

SEALED_FIELD = "__sealed__"


def seal_value(sealer: Sealer | None, namespace: tuple[str, ...], key: str, value: dict[str, Any]) -> dict[str, Any]:
    """``value`` as it is stored under ``namespace`` (the subject's label first) and ``key``."""
    if sealer is None:
        return value
    sealed = sealer.seal(msgspec.json.encode(value), place("store", *namespace, key))
    return {SEALED_FIELD: base64.b64encode(sealed).decode()}


def open_value(sealer: Sealer | None, namespace: tuple[str, ...], key: str, stored: dict[str, Any]) -> dict[str, Any]:
    """The value a stored one holds; ``SealError`` when a key is set and it does not open."""
    if sealer is None:
        return stored
    sealed = stored.get(SEALED_FIELD) if len(stored) == 1 else None
    if not isinstance(sealed, str):
        raise PlainValueError("a plain value in the long-term store where HARNESS_ENCRYPTION_KEY is set")
    opened = sealer.unseal(base64.b64decode(sealed), place("store", *namespace, key))
    value: dict[str, Any] = msgspec.json.decode(opened)
    return value
