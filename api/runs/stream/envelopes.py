"""The service's own event stream (``text/event-stream`` of ``/chat``, ``/chat/resume``, ``/runs/{id}/events``).

Each event goes out as an SSE frame of the envelope the log stored, byte for byte (a replay sends what the live
stream sent); a ``retry:`` hint comes first, and the stream ends with the run's terminal event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.stream.frames import HEARTBEAT, sse_frames
from contracts import TERMINAL_EVENT_TYPES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.log.records import StoredEvent

__all__ = ("EnvelopeStream",)


class EnvelopeStream:
    """One stream of one run: what it holds is the run's id and the opening, shared by reference."""

    __slots__ = ("heartbeat", "opening", "run_id")

    def __init__(self, run_id: str, opening: bytes) -> None:
        """``opening``: ``retry_frame(retry_ms)``, made once for every stream."""
        self.run_id = run_id
        self.opening = opening
        self.heartbeat = HEARTBEAT

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        return sse_frames(self.run_id, events)

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return events[-1].type in TERMINAL_EVENT_TYPES
