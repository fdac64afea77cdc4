"""A finished run of the caller's as an eval case (``GET /runs/{run_id}/case``): what ``harness eval capture``
writes for it, for the SPA's "Save as eval case" and any client that builds a dataset from real runs.

The run is found as every read finds it (404 for a run that is not the caller's: an approver who may read it
included, since a case holds the asker's input) and read from the same stores the command reads
(``api.runs.capture_source.StoreRunSource``), so the two give the same case for the same run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.evaluation import CaptureError, capture_runs
from api.runs.capture_source import StoreRunSource
from api.runs.errors import RunNotCapturable, RunNotFinished, RunNotFound
from api.runs.log.records import FINISHED

if TYPE_CHECKING:
    from api.runs.principal import Principal
    from api.runs.registry import RunRegistry

__all__ = ("run_case",)


async def run_case(runs: RunRegistry, run_id: str, principal: Principal) -> dict[str, Any]:
    """``principal``'s finished run ``run_id`` as one case of the graph dataset format, redacted: 404 for a run
    that is not theirs, 409 ``run_not_finished`` before it ends, 409 ``run_not_capturable`` for a run no case can
    be made of (a ``/chat`` turn, a run whose early events left the replay window)."""
    found = await runs.get(run_id, principal)
    if not runs.access.owns(principal, found.record):
        raise RunNotFound(f"There is no run {run_id}")
    status = found.current_snapshot().status
    if status not in FINISHED:
        raise RunNotFinished(f"Run {run_id} is {status}; a case is made of a finished run.", run_id=run_id)
    source = StoreRunSource(runs.log, runs.agent.stores.checkpointer)
    try:
        [case] = await capture_runs(source, [run_id])
    except CaptureError as exc:
        raise RunNotCapturable(f"{str(exc)[0].upper()}{str(exc)[1:]}.") from None
    return case
