"""``POST /ag-ui`` and ``POST /ag-ui/{assistant_id}``: AG-UI 1.0 for the support agent and for any registered graph,
for AG-UI clients (CopilotKit, ``@ag-ui/client``, ...)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from litestar.di import NamedDependency
from litestar.params import JSONBody
from litestar.response import Stream

from agent.graphs import SUPPORT_GRAPH_ID
from api.agui import AgUiStream, AgUiTranslator, graph_turn, requested_turn, run_options
from api.chat_runs import AG_UI_MODES, open_graph_run, open_support_run
from api.graph_runs import graph_named
from api.openapi import RUN_ID_HEADER, SESSION_ID_HEADER
from api.openapi.agui_operation import AgUiOperation
from api.routes._params import AssistantId
from api.routes._router import grouped
from api.routes._services import CHAT_STARTS, RunServices, turn_route
from api.run_streams import held_slot, run_stream
from contracts.agui import AgUiGraphRunInput, AgUiRunInput

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar import Router

    from api.chat_runs import OpenedRun
    from api.runs.stream.slot import StreamSlot

__all__ = ("ag_ui", "ag_ui_graph", "ag_ui_router")

_runs_over_ag_ui = partial(turn_route, operation_class=AgUiOperation, responses=CHAT_STARTS)


@_runs_over_ag_ui(
    "/",
    operation_id="runAgUi",
    summary="Run the agent over AG-UI 1.0: a new turn, or the answer to a paused run's interrupt",
)
async def ag_ui(data: JSONBody[AgUiRunInput], *, services: NamedDependency[RunServices]) -> Stream:
    turn = requested_turn(data)
    async with held_slot(services.quota, services.principal) as slot:
        opened = await open_support_run(
            services.runs, services.graphs[SUPPORT_GRAPH_ID], turn, data.thread_id, services.principal
        )
    return _stream(services, data.thread_id, data.run_id, opened, slot)


@_runs_over_ag_ui(
    "/{assistant_id:str}",
    operation_id="runAgUiGraph",
    summary="Run a registered graph over AG-UI 1.0: a new run of the thread, or the answer to its interrupt",
)
async def ag_ui_graph(
    assistant_id: AssistantId, *, data: JSONBody[AgUiGraphRunInput], services: NamedDependency[RunServices]
) -> Stream:
    registered = graph_named(services.graphs, assistant_id)
    turn = graph_turn(data, registered)
    config, context = run_options(data)
    async with held_slot(services.quota, services.principal) as slot:
        opened = await open_graph_run(
            services.runs,
            services.threads,
            registered,
            data.thread_id,
            turn,
            principal=services.principal,
            modes=AG_UI_MODES,
            config=config,
            context=context,
            field_prefix="forwardedProps.",
        )
    return _stream(services, data.thread_id, data.run_id, opened, slot)


def _stream(services: RunServices, thread_id: str, run_id: str, opened: OpenedRun, slot: StreamSlot) -> Stream:
    """The AG-UI stream of the run ``opened`` for the client's ``threadId`` and ``runId``."""
    translator = AgUiTranslator(thread_id=thread_id, run_id=run_id, roles=opened.roles)
    return run_stream(
        services.streams,
        opened.run_id,
        opened.after,
        slot,
        encoder=AgUiStream(translator),
        headers={RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )


def ag_ui_router(*, body_checks: Sequence[Any]) -> Router:
    """``/ag-ui``: a run of the support agent or of a registered graph over AG-UI."""
    return grouped("/ag-ui", [ag_ui, ag_ui_graph], body_checks=body_checks)
