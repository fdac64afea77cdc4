"""SSE framing: every event becomes ``id``/``event``/``data`` lines, encoded once into a reused buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from contracts import ENVELOPE_OF, ENVELOPE_VERSION

if TYPE_CHECKING:
    from contracts import Envelope, EventPayload, RunStatus

__all__ = ("HEARTBEAT", "FrameEncoder", "retry_frame")

HEARTBEAT = b": hb\n\n"

_KIND_OF: dict[type[Any], tuple[str, bytes]] = {
    envelope: (envelope.__struct_config__.tag, envelope.__struct_config__.tag.encode())
    for envelope in ENVELOPE_OF.values()
}
"""Each envelope's ``type``, as text and as the bytes of its ``event:`` line."""


def retry_frame(retry_ms: int) -> bytes:
    return b"retry: %d\n\n" % retry_ms


class FrameEncoder:
    """Builds the envelope of a payload and its SSE frame in one pass.

    The envelope's own fields (type, version, run id, seq, status, time) are plain tokens (a run id matches the
    contract's id pattern), so they are written as the bytes msgspec would write for the envelope ``Struct`` and
    only the payload goes through msgspec: a token costs no envelope object, and its frame is one join of the
    head's constant pieces, the seq, the time and the payload. Envelopes with optional fields (``human_wait_ms``)
    are encoded from the ``Struct``. ``tests/api/runs/stream/test_frames.py`` holds every frame the service sends
    to its ``Struct``'s bytes.
    """

    def __init__(self) -> None:
        self._encoder = msgspec.json.Encoder()
        self._heads: dict[tuple[str, type[Any], str], tuple[bytes, bytes, bytes, str]] = {}
        """The constant pieces of a frame's head for a run, an event type and a status, and the event's type."""

    def encode(
        self,
        payload: EventPayload,
        run_id: str,
        seq: int,
        status: RunStatus,
        at: str,
        *,
        extra: dict[str, Any] | None = None,
    ) -> tuple[str, bytes]:
        """The event type and the whole frame of ``payload`` as event ``seq`` of ``run_id`` (``extra``: the
        envelope's optional fields)."""
        envelope_class = ENVELOPE_OF[type(payload)]
        if extra:
            kind, event_line = _KIND_OF[envelope_class]
            envelope: Envelope = envelope_class(ENVELOPE_VERSION, run_id, seq, status, at, payload, **extra)
            data = self._encoder.encode(envelope)
            return kind, b"id: %s:%d\nevent: %s\ndata: %s\n\n" % (run_id.encode(), seq, event_line, data)
        head = self._heads.get((run_id, envelope_class, status))
        if head is None:
            head = self._head(run_id, envelope_class, status)
        number = b"%d" % seq
        data = self._encoder.encode(payload)
        return head[3], b"".join((head[0], number, head[1], number, head[2], at.encode(), b'","data":', data, b"}\n\n"))

    def _head(self, run_id: str, envelope_class: type[Any], status: str) -> tuple[bytes, bytes, bytes, str]:
        if len(self._heads) >= _HEADS_KEPT:
            self._heads.clear()
        kind, event_line = _KIND_OF[envelope_class]
        run = run_id.encode()
        head = (
            b"id: %s:" % run,
            b'\nevent: %s\ndata: {"type":"%s","v":%d,"run_id":"%s","seq":'
            % (event_line, event_line, ENVELOPE_VERSION, run),
            b',"status":"%s","at":"' % status.encode(),
            kind,
        )
        self._heads[(run_id, envelope_class, status)] = head
        return head


_HEADS_KEPT = 1024
"""Heads kept for the runs streaming now (the pieces around the seq and the time, in the ``Struct``'s field order)."""
