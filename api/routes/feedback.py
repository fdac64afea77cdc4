"""``POST /runs/{run_id}/feedback``: thumbs up or down, with an optional comment, on a finished run of the caller's."""

from __future__ import annotations

from typing import Annotated

from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter

from api.auth import Principal
from api.openapi import RUN_ID_PATTERN, problem_responses
from api.runs.feedback import give_feedback
from api.runs.registry import RunRegistry
from contracts import FeedbackRequest, RunFeedback

__all__ = ("post_feedback",)


@post(
    "/runs/{run_id:str}/feedback",
    operation_id="postRunFeedback",
    tags=["runs"],
    status_code=201,
    summary="Rate a finished run: thumbs up or down, with an optional comment",
    description=(
        "Keeps the caller's verdict on a run of theirs that has finished (`completed`, `failed` or `cancelled`; "
        "else 409 `run_not_finished`): one a run, a second replacing the first. The comment is stored redacted as a "
        "message is (card numbers, keys and personal numbers removed) and goes with the run: erasing its session "
        "(`DELETE /sessions/{session_id}`) or the retention purge removes it. A run of someone else's, an approver's "
        "included, does not exist here (404). Feedback is a label: `harness eval calibrate` measures the judges' "
        "agreement with it (docs/evaluation.md)."
    ),
    responses=problem_responses(401, 404, 409, 413, 422, 503),
)
async def post_feedback(
    run_id: Annotated[str, PathParameter(pattern=RUN_ID_PATTERN, description="The finished run to rate.")],
    data: JSONBody[FeedbackRequest],
    runs: NamedDependency[RunRegistry],
    principal: NamedDependency[Principal],
) -> RunFeedback:
    return await give_feedback(runs, run_id, principal, data)
