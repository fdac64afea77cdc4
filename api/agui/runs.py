"""Where AG-UI meets the run registry: the one function to re-point when the registry's API changes.

AG-UI adds no run machinery of its own. It starts a turn (``RunRegistry.start_turn``) or resumes a paused
run (``RunRegistry.resume``), then reads that run's committed events as the SSE bytes every other stream
gets (``follow_run``: replay after the cursor, the live tail, heartbeats, the disconnect grace), decoded
back into contract envelopes for the translator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import msgspec

from api.runs.stream.follow import follow_run
from contracts import ChatRequest, Envelope

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    from api.auth import Principal
    from api.runs.registry import RunRegistry
    from contracts import ResumeRequest

__all__ = ("OpenedRun", "open_run")

_DATA = b"data: "
_decode = msgspec.json.Decoder(Envelope).decode


@dataclass(frozen=True, slots=True)
class OpenedRun:
    run_id: str
    session_id: str
    envelopes: AsyncGenerator[Envelope | None, None]
    """The run's envelopes from where this request picks it up, ``None`` for each heartbeat."""


async def open_run(runs: RunRegistry, turn: ChatRequest | ResumeRequest, principal: Principal) -> OpenedRun:
    """Start the turn or resume the run for ``principal`` (their errors propagate: 403, 404, 409, 503), and
    follow it from there."""
    if isinstance(turn, ChatRequest):
        run, after = await runs.start_turn(turn.message, turn.session_id, principal), 0
    else:
        run, after = await runs.resume(turn, principal)
    return OpenedRun(run.run_id, run.session_id, _envelopes(runs, run.run_id, after))


async def _envelopes(runs: RunRegistry, run_id: str, after: int) -> AsyncGenerator[Envelope | None, None]:
    pending = b""
    stream = cast("AsyncGenerator[bytes, None]", follow_run(runs, run_id, after))
    try:
        async for chunk in stream:
            pending += chunk
            *frames, pending = pending.split(b"\n\n")
            for frame in frames:
                if frame.startswith(b":"):
                    yield None
                    continue
                for line in frame.split(b"\n"):
                    if line.startswith(_DATA):
                        yield _decode(line[len(_DATA) :])
    finally:
        await stream.aclose()
