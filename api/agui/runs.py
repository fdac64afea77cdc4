"""Where AG-UI meets the run registry: the one function to re-point when the registry's API changes.

AG-UI adds no run machinery of its own. It starts a turn (``RunRegistry.start_turn``) or resumes a paused
run (``RunRegistry.resume``), then follows that run's committed events like every other stream (replay
after the cursor, the live tail, heartbeats, the disconnect grace), encoded by ``AgUiStream``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from contracts import ChatRequest

if TYPE_CHECKING:
    from api.auth import Principal
    from api.runs.registry import RunRegistry
    from contracts import ResumeRequest

__all__ = ("OpenedRun", "open_run")


@dataclass(frozen=True, slots=True)
class OpenedRun:
    run_id: str
    session_id: str
    after: int
    """The seq this request's stream picks the run up after."""


async def open_run(runs: RunRegistry, turn: ChatRequest | ResumeRequest, principal: Principal) -> OpenedRun:
    """Start the turn or resume the run for ``principal`` (their errors propagate: 403, 404, 409, 503)."""
    if isinstance(turn, ChatRequest):
        run, after = await runs.start_turn(turn.message, turn.session_id, principal), 0
    else:
        run, after = await runs.resume(turn, principal)
    return OpenedRun(run.run_id, run.session_id, after)
