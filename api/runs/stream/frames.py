"""A run's events as the log keeps them (the envelope's JSON, encoded once) and as the service's SSE sends them.

The log holds envelopes, not wire frames: every encoder reads the same bytes (the service's own stream adds the
``id:``/``event:`` lines as it sends, ``sse_frames``; AG-UI, the AI SDK and the Agent Protocol decode the
envelope), so no encoder finds a payload inside another protocol's framing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from contracts import ENVELOPE_OF, ENVELOPE_VERSION

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.log.records import StoredEvent
    from contracts import Envelope, EventPayload, RunStatus

__all__ = ("HEARTBEAT", "EnvelopeEncoder", "retry_frame", "sse_frames")

HEARTBEAT = b": hb\n\n"

_KIND_OF: dict[type[Any], str] = {envelope: envelope.__struct_config__.tag for envelope in ENVELOPE_OF.values()}
"""Each envelope's ``type``."""
_EVENT_LINES: dict[str, bytes] = {kind: b"\nevent: " + kind.encode() + b"\ndata: " for kind in _KIND_OF.values()}


def retry_frame(retry_ms: int) -> bytes:
    return b"retry: %d\n\n" % retry_ms


def sse_frames(run_id: str, events: Sequence[StoredEvent]) -> bytes:
    """``events`` of ``run_id`` as the service's SSE frames: ``id: <run_id>:<seq>``, ``event: <type>``, ``data:``
    the envelope; a replay sends what the live stream sent, byte for byte."""
    head = b"id: " + run_id.encode() + b":"
    lines = _EVENT_LINES
    return b"".join(
        [
            b"".join(
                (head, b"%d" % event.seq, lines.get(event.type) or _event_line(event.type), event.envelope, b"\n\n")
            )
            for event in events
        ]
    )


def _event_line(kind: str) -> bytes:
    return b"\nevent: " + kind.encode() + b"\ndata: "


class EnvelopeEncoder:
    """Builds the envelope of a payload in one pass.

    The envelope's own fields (type, version, run id, seq, status, time) are plain tokens (a run id matches the
    contract's id pattern), so they are written as the bytes msgspec would write for the envelope ``Struct`` and
    only the payload goes through msgspec: a token costs no envelope object, and its envelope is one join of the
    head's constant pieces, the seq, the time and the payload. Envelopes with optional fields (``human_wait_ms``)
    are encoded from the ``Struct``. ``tests/api/runs/stream/test_frames.py`` holds every envelope the service
    logs to its ``Struct``'s bytes.
    """

    def __init__(self) -> None:
        self._encoder = msgspec.json.Encoder()
        self._heads: dict[tuple[str, type[Any], str], tuple[bytes, bytes, str]] = {}
        """The constant pieces of an envelope for a run, an event type and a status, and the event's type."""

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
        """The event type and the envelope of ``payload`` as event ``seq`` of ``run_id`` (``extra``: the
        envelope's optional fields)."""
        envelope_class = ENVELOPE_OF[type(payload)]
        if extra:
            envelope: Envelope = envelope_class(ENVELOPE_VERSION, run_id, seq, status, at, payload, **extra)
            return _KIND_OF[envelope_class], self._encoder.encode(envelope)
        head = self._heads.get((run_id, envelope_class, status))
        if head is None:
            head = self._head(run_id, envelope_class, status)
        data = self._encoder.encode(payload)
        return head[2], b"".join((head[0], b"%d" % seq, head[1], at.encode(), b'","data":', data, b"}"))

    def _head(self, run_id: str, envelope_class: type[Any], status: str) -> tuple[bytes, bytes, str]:
        if len(self._heads) >= _HEADS_KEPT:
            self._heads.clear()
        kind = _KIND_OF[envelope_class]
        head = (
            b'{"type":"%s","v":%d,"run_id":"%s","seq":' % (kind.encode(), ENVELOPE_VERSION, run_id.encode()),
            b',"status":"%s","at":"' % status.encode(),
            kind,
        )
        self._heads[(run_id, envelope_class, status)] = head
        return head


_HEADS_KEPT = 1024
"""Heads kept for the runs streaming now (the pieces around the seq and the time, in the ``Struct``'s field order)."""
