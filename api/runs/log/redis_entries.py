"""What one entry of a run's Redis stream holds: the events of one commit of that run, in MessagePack.

An entry's id is ``<last seq>-0``, the seq of the last event it holds, and its one field ``f`` is the batch,
sealed with a key as a whole with the entry's place (``where_entry``: the run id and that last seq). So a
commit of a thousand events costs Redis one ``XADD`` and a replay reads a few large entries, not an entry per
event (docs/adr/0025-batched-stream-entries.md). Entries written before batching (fields ``t`` and ``f``: one
event's type and frame, sealed with ``where_event``) are still read, and so are entries of SSE frames, written
before the log held envelopes (``records.as_envelopes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from agent import place
from api.runs.log.records import StoredEvent, as_envelopes, envelope_of_frame, where_event

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent import Sealer

__all__ = ("entry_blob", "entry_events", "entry_seq", "where_entry")

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(list[StoredEvent]).decode


def where_entry(run_id: str, last_seq: int) -> bytes:
    """The place a sealed entry is bound to: a blob moved to another run, or another entry, does not open."""
    return place("event_entry", run_id, last_seq)


def entry_seq(entry_id: bytes) -> int:
    """The seq of the last event an entry holds (its id's first part)."""
    return int(entry_id.split(b"-", 1)[0])


def entry_blob(run_id: str, events: Sequence[StoredEvent], sealer: Sealer | None) -> bytes:
    """The ``f`` field of the entry holding ``events`` (one commit of the run, in order)."""
    blob = _encode(events)
    return blob if sealer is None else sealer.seal(blob, where_entry(run_id, events[-1].seq))


def entry_events(run_id: str, entry_id: bytes, fields: dict[bytes, bytes], sealer: Sealer | None) -> list[StoredEvent]:
    """The events an entry holds, opened with the key when there is one."""
    seq, blob = entry_seq(entry_id), fields[b"f"]
    kind = fields.get(b"t")
    if kind is not None:  # an entry of one event, written before batching
        frame = blob if sealer is None else sealer.unseal(blob, where_event(run_id, seq))
        return [StoredEvent(seq, kind.decode(), envelope_of_frame(frame))]
    if sealer is not None:
        blob = sealer.unseal(blob, where_entry(run_id, seq))
    return as_envelopes(_decode(blob))
