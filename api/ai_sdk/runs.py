"""Where the AI SDK's chat meets the run registry: starting or deciding a run, and finding a session's active run.

The AI SDK adds no run machinery of its own. A POST starts a turn (``RunRegistry.start_turn``) or resumes the
paused run (``RunRegistry.resume``, with its approver rule); the reconnect (``GET .../stream``) looks up the
session's unfinished run in the log, so it finds it from any instance. Each then follows the run's committed
events like every other stream (replay, the live tail, heartbeats, the disconnect grace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from api.ai_sdk.translate import tool_approval_id
from api.exceptions import SessionNotFound
from contracts import ChatRequest

if TYPE_CHECKING:
    from api.auth import Principal
    from api.runs.registry import RunRegistry
    from contracts import ResumeRequest

__all__ = ("OpenedRun", "active_run", "open_run")


@dataclass(frozen=True, slots=True)
class OpenedRun:
    run_id: str
    session_id: str
    after: int
    """The seq this response picks the run up after."""
    deciding: str | None = None
    """The ``approvalId`` this response answers (an approval's POST)."""


async def open_run(runs: RunRegistry, turn: ChatRequest | ResumeRequest, principal: Principal) -> OpenedRun:
    """Start the turn or resume the run for ``principal`` (their errors propagate: 403, 404, 409, 503)."""
    if isinstance(turn, ChatRequest):
        run = await runs.start_turn(turn.message, turn.session_id, principal)
        return OpenedRun(run.run_id, run.session_id, 0)
    run, after = await runs.resume(turn, principal)
    return OpenedRun(run.run_id, run.session_id, after, tool_approval_id(turn.run_id, turn.approval_id))


async def active_run(runs: RunRegistry, session_id: str, principal: Principal) -> str | None:
    """The session's unfinished run (running, or waiting for a person), if it has one; a session of another
    subject does not exist for ``principal`` (404), an unknown one has no active run."""
    known, owner = await runs.log.session_owner(session_id)
    if known and not runs.access.session_access(principal).may_continue(owner):
        raise SessionNotFound(f"There is no session {session_id}.")
    run_id = await runs.log.active_run(session_id)
    if run_id is None:
        return None
    await runs.get(run_id, principal, session_id=session_id)
    return run_id
