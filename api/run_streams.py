"""The answer of every route that streams a run: its events as one protocol encodes them, in an ``EventStream``.

The stream takes one of the subject's stream slots before its response starts (so a 429 changes nothing) and
gives it back when it ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.negotiation import EVENT_STREAM
from api.runs.stream.slot import StreamSlot
from api.streaming_response import EventStream

if TYPE_CHECKING:
    from api.auth import Principal
    from api.runs.registry import RunRegistry
    from api.runs.stream.follow import StreamEncoder

__all__ = ("SSE_HEADERS", "no_slot", "open_slot", "run_stream")

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def open_slot(runs: RunRegistry, principal: Principal) -> StreamSlot:
    """A slot for one more stream of ``principal``; ``TooManyStreams`` (429) when none is free."""
    return await StreamSlot.take(runs.stream_quota, principal)


def no_slot(runs: RunRegistry) -> StreamSlot:
    """No slot: what a JSON answer holds."""
    return StreamSlot(runs.stream_quota, None)


def run_stream(
    runs: RunRegistry,
    run_id: str,
    after: int,
    slot: StreamSlot,
    *,
    encoder: StreamEncoder | None = None,
    headers: dict[str, str] | None = None,
) -> EventStream:
    """The run's events after ``after``, as ``encoder`` writes them (the service's own envelopes by default)."""
    return EventStream(
        slot.hold(runs.streams.follow(run_id, after, encoder or runs.envelopes(run_id))),
        media_type=EVENT_STREAM,
        headers={**SSE_HEADERS, **(headers or {})},
    )
