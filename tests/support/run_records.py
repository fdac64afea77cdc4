"""Run records as the event logs store them, for tests that write a log or a store directly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.log.records import RunRecord
from contracts import RunSnapshot

if TYPE_CHECKING:
    from contracts import RunStatus

__all__ = ("run_record",)


def run_record(
    run_id: str,
    session_id: str,
    *,
    status: RunStatus = "running",
    last_seq: int = 0,
    owner: str | None = None,
    at: str = "2026-12-01T00:00:00.000000Z",
) -> RunRecord:
    """A run of ``session_id`` begun and last changed ``at``, with nothing to show yet."""
    snapshot = RunSnapshot(
        run_id=run_id,
        session_id=session_id,
        status=status,
        last_seq=last_seq,
        started_at=at,
        updated_at=at,
        response=None,
        pending_approval=None,
        error=None,
    )
    return RunRecord(snapshot=snapshot, owner=owner)
