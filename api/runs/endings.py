"""How a run is ended from outside its graph: the error it ends with, and its snapshot once that end is committed."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from contracts import ErrorInfo

if TYPE_CHECKING:
    from api.runs.run import Run
    from contracts import RunSnapshot

__all__ = ("run_error", "settled_snapshot")

_CANCEL_SETTLE_S = 5.0


def run_error(code: str, message: str, retryable: bool) -> ErrorInfo:
    """The error of a run cancelled, lost, or whose graph is no longer served."""
    return ErrorInfo(code=code, message=message, retryable=retryable, node=None)


async def settled_snapshot(run: Run, cursor: int) -> RunSnapshot:
    """The run's snapshot once an outcome after ``cursor`` is committed, or as it is after a short wait."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(run.wait_settled(cursor), _CANCEL_SETTLE_S)
    return run.current_snapshot()
