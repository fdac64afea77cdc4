"""A person's feedback on a finished run of theirs (``POST /runs/{run_id}/feedback``): a label for the judges.

It is kept in the interaction log's store, so it goes with its run and its session (``DELETE /sessions/{id}``)
and with the retention purge as the logged turn does. One a run: the latest replaces any before it (ADR 45).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import format_timestamp
from agent.guardrails import redact
from api.runs.errors import RunNotFinished, RunNotFound
from api.runs.log.records import FINISHED
from contracts import RunFeedback

if TYPE_CHECKING:
    from api.runs.principal import Principal
    from api.runs.registry import RunRegistry
    from contracts import FeedbackRequest

__all__ = ("give_feedback",)


async def give_feedback(runs: RunRegistry, run_id: str, principal: Principal, request: FeedbackRequest) -> RunFeedback:
    """Keep ``principal``'s feedback on their run ``run_id``: 404 for a run that is not theirs (an approver who
    may read it included: it is the asker's answer that is the label), 409 for one that has not finished."""
    found = await runs.get(run_id, principal)
    record = found.record
    if not runs.access.owns(principal, record):
        raise RunNotFound(f"There is no run {run_id}")
    snapshot = found.current_snapshot()
    if snapshot.status not in FINISHED:
        raise RunNotFinished(f"Run {run_id} is {snapshot.status}; feedback is for a finished run.", run_id=run_id)
    feedback = RunFeedback(
        run_id=run_id,
        session_id=snapshot.session_id,
        score=request.score,
        comment=None if request.comment is None else redact(request.comment),
        at=format_timestamp(runs.clock.now_ns()),
    )
    interactions = runs.agent.stores.interactions
    await interactions.record_feedback(feedback)
    if await runs.find(run_id) is None:
        # the session was erased while this was written: what was written goes too
        await interactions.erase(run_ids=[run_id])
        raise RunNotFound(f"There is no run {run_id}")
    return feedback
