"""The answer of every route that streams a run: its events as one protocol encodes them, in an ``EventStream``.

The stream takes one of the subject's stream slots (``StreamQuota``) before its response starts (so a 429 changes
nothing) and gives it back when it ends.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from api.negotiation import EVENT_STREAM
from api.runs.stream.slot import StreamSlot
from api.streaming_response import EventStream

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from api.auth import Principal
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.stream.follow import RunStreams, StreamEncoder

__all__ = ("SSE_HEADERS", "held_slot", "no_slot", "open_slot", "run_stream")

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def open_slot(quota: StreamQuota, principal: Principal) -> StreamSlot:
    """A slot for one more stream of ``principal``; ``TooManyStreams`` (429) when none is free."""
    return await StreamSlot.take(quota, principal)


@asynccontextmanager
async def held_slot(quota: StreamQuota, principal: Principal) -> AsyncIterator[StreamSlot]:
    """``async with held_slot(quota, principal) as slot:`` start the run the stream follows; a slot of
    ``principal``'s taken first (429 when none is free, before anything starts) and given back when the block
    raises, else held by the stream (``run_stream``) until it ends."""
    slot = await open_slot(quota, principal)
    try:
        yield slot
    except BaseException:
        await slot.release()
        raise


def no_slot(quota: StreamQuota) -> StreamSlot:
    """No slot: what a JSON answer holds."""
    return StreamSlot(quota, None)


def run_stream(
    streams: RunStreams,
    run_id: str,
    after: int,
    slot: StreamSlot,
    *,
    encoder: StreamEncoder | None = None,
    headers: dict[str, str] | None = None,
) -> EventStream:
    """The run's events after ``after``, as ``encoder`` writes them (the service's own envelopes by default)."""
    return EventStream(
        slot.hold(streams.follow(run_id, after, encoder or streams.envelopes(run_id))),
        media_type=EVENT_STREAM,
        headers={**SSE_HEADERS, **(headers or {})},
    )
