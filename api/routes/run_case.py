"""``GET /runs/{run_id}/case``: a finished run of the caller's as the eval case ``harness eval capture`` writes."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import get
from litestar.di import NamedDependency
from litestar.params import PathParameter

from api.auth import Principal
from api.openapi import RUN_ID_PATTERN, problem_responses
from api.runs.registry import RunRegistry
from api.runs.run_case import run_case

__all__ = ("get_run_case",)


@get(
    "/runs/{run_id:str}/case",
    operation_id="getRunCase",
    tags=["runs"],
    summary="A finished run as an eval case of the graph dataset format",
    description=(
        "The caller's finished run of a registered graph (`completed`, `failed` or `cancelled`; else 409 "
        "`run_not_finished`) as one case of `harness eval`'s graph dataset format, the line `harness eval capture "
        "RUN_ID --dataset FILE` appends for it: `id` (`captured-<run id>`), `category` `captured`, the input, each "
        "`resume` decision, and what the run did as `expect` (trajectory, tool calls, interrupts, final state), to "
        "review before it is trusted. Every string is redacted as a message is. A run of someone else's, an "
        "approver's included, does not exist here (404); a `/chat` turn of the support agent, or a run whose first "
        'events have left the replay window, is 409 `run_not_capturable`. docs/evaluation.md, "Datasets from real '
        'runs".'
    ),
    responses=problem_responses(401, 404, 409, 422, 503),
)
async def get_run_case(
    run_id: Annotated[str, PathParameter(pattern=RUN_ID_PATTERN, description="The finished run to write as a case.")],
    runs: NamedDependency[RunRegistry],
    principal: NamedDependency[Principal],
) -> dict[str, Any]:
    return await run_case(runs, run_id, principal)
