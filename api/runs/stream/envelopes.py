"""The service's own event stream (``text/event-stream`` of ``/chat``, ``/chat/resume``, ``/runs/{id}/events``).

Each event goes out as the frame the log stored, byte for byte (a replay sends what the live stream sent); a
``retry:`` hint comes first, and the stream ends with the run's terminal event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.stream.frames import HEARTBEAT, retry_frame
from contracts import TERMINAL_EVENT_TYPES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.log.records import StoredEvent

__all__ = ("EnvelopeStream",)


class EnvelopeStream:
    """Holds nothing of a stream's own, so every stream of the service shares one."""

    __slots__ = ("heartbeat", "opening")

    def __init__(self, retry_ms: int) -> None:
        self.opening = retry_frame(retry_ms)
        self.heartbeat = HEARTBEAT

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        return b"".join([event.frame for event in events])

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return events[-1].type in TERMINAL_EVENT_TYPES
