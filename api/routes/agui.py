"""``POST /ag-ui``: the agent over AG-UI 1.0, for AG-UI clients (CopilotKit, ``@ag-ui/client``, ...)."""

from __future__ import annotations

from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody
from litestar.response import Stream

from api.agui import AgUiStream, AgUiTranslator, open_run, requested_turn
from api.auth import Principal
from api.openapi import RUN_ID_HEADER, SESSION_ID_HEADER, problem_responses
from api.openapi.agui_operation import AgUiOperation
from api.run_streams import open_slot, run_stream
from api.runs.registry import RunRegistry
from contracts.agui import AgUiRunInput

__all__ = ("ag_ui",)


@post(
    "/ag-ui",
    operation_id="runAgUi",
    tags=["turns"],
    status_code=200,
    summary="Run the agent over AG-UI 1.0: a new turn, or the answer to a paused run's interrupt",
    operation_class=AgUiOperation,
    responses=problem_responses(401, 403, 404, 409, 413, 422, 429, 503),
)
async def ag_ui(
    data: JSONBody[AgUiRunInput], runs: NamedDependency[RunRegistry], principal: NamedDependency[Principal]
) -> Stream:
    slot = await open_slot(runs, principal)
    try:
        opened = await open_run(runs, requested_turn(data), principal)
    except BaseException:
        await slot.release()
        raise
    return run_stream(
        runs,
        opened.run_id,
        opened.after,
        slot,
        encoder=AgUiStream(AgUiTranslator(thread_id=data.thread_id, run_id=data.run_id)),
        headers={RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )
