"""``RunSnapshot``: the state of one run, as ``GET /runs/{run_id}`` reports it."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from contracts.ids import RunId, SessionId
from contracts.responses import ChatResponse, PendingApproval

__all__ = ("RunError", "RunSnapshot", "RunStatus")

RunStatus = Literal["pending", "running", "waiting", "completed", "failed", "cancelled"]


class RunError(msgspec.Struct, kw_only=True):
    """Why a run ended without completing (the same fields as the `error` event)."""

    code: str
    message: str
    retryable: bool
    node: str | None


class RunSnapshot(msgspec.Struct, kw_only=True):
    """Where a run stands now."""

    run_id: RunId
    session_id: SessionId
    status: Annotated[
        RunStatus,
        msgspec.Meta(
            description=(
                "`pending` (queued behind its thread's run: `multitask_strategy` `enqueue`), `running`, `waiting` "
                "(paused for a human), or the final `completed`, `failed` or `cancelled`."
            )
        ),
    ]
    last_seq: Annotated[int, msgspec.Meta(ge=0, description="The `seq` of the newest event in the run's log.")]
    started_at: str
    updated_at: str
    response: Annotated[
        ChatResponse | None,
        msgspec.Meta(
            description=(
                "The latest ChatResponse of the run: the paused one while waiting, the final one when completed."
            )
        ),
    ]
    pending_approval: PendingApproval | None
    error: RunError | None
    decided_by: Annotated[
        str | None,
        msgspec.Meta(description="Who decided the run's approval (the subject of their token); `null` until then."),
    ] = None
