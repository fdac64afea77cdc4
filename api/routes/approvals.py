"""``GET /approvals``: the pending approvals the caller may decide, for an approvals inbox."""

from __future__ import annotations

from typing import Any

from litestar import Request, get
from litestar.di import NamedDependency

from api.auth import Principal
from api.auth.authorization import narrowed_threads
from api.openapi import problem_responses
from api.runs.registry import RunRegistry
from contracts import PendingApprovals

__all__ = ("list_approvals",)


@get(
    "/approvals",
    operation_id="listApprovals",
    tags=["runs"],
    summary="The pending approvals the caller may decide",
    description=(
        "Runs paused for a person's approval that the caller may approve or reject with `POST /chat/resume` (a "
        "registered graph's interrupt, one with a `graph_id`, with `POST /threads/{session_id}/runs` and a "
        "`command.resume`): with `HARNESS_APPROVER_ROLE` set, every waiting run for a subject with that role and "
        "none for anyone else; without it, the caller's own waiting runs (every waiting run when identity is off). "
        "With langgraph.json's `auth`, its `threads` `search` handler is asked, and a run whose thread its filter "
        "excludes is not listed."
    ),
    cache=False,
    responses=problem_responses(401, 503),
)
async def list_approvals(
    request: Request[Any, Any, Any], runs: NamedDependency[RunRegistry], principal: NamedDependency[Principal]
) -> PendingApprovals:
    threads = narrowed_threads(request.scope, runs.threads)
    pending = await runs.approvals.pending_approvals(principal)
    return PendingApprovals(
        approvals=[approval for approval in pending if not await threads.hides(approval.session_id)]
    )
