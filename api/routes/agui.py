"""``POST /ag-ui`` and ``POST /ag-ui/{assistant_id}``: AG-UI 1.0 for the support agent and for any registered graph,
for AG-UI clients (CopilotKit, ``@ag-ui/client``, ...)."""

from __future__ import annotations

from typing import Annotated

from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter
from litestar.response import Stream

from agent.graphs import SUPPORT_GRAPH_ID, GraphRegistry
from api.agui import AgUiStream, AgUiTranslator, graph_turn, requested_turn, run_options
from api.auth import Principal
from api.chat_runs import AG_UI_MODES, open_graph_run, open_support_run
from api.graph_runs import graph_named
from api.openapi import RUN_ID_HEADER, SESSION_ID_HEADER, problem_responses
from api.openapi.agui_operation import AgUiOperation
from api.run_streams import held_slot, run_stream
from api.runs.cluster.quotas import StreamQuota
from api.runs.registry import RunRegistry
from api.runs.stream.follow import RunStreams
from api.runs.threads import ThreadBook
from contracts.agui import AgUiGraphRunInput, AgUiRunInput

__all__ = ("ag_ui", "ag_ui_graph")

AssistantId = Annotated[
    str, PathParameter(description="A registered graph: its assistant id (a UUID) or its graph id, e.g. `react_agent`.")
]


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
    data: JSONBody[AgUiRunInput],
    *,
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> Stream:
    turn = requested_turn(data)
    async with held_slot(quota, principal) as slot:
        opened = await open_support_run(runs, graphs[SUPPORT_GRAPH_ID], turn, data.thread_id, principal)
    translator = AgUiTranslator(thread_id=data.thread_id, run_id=data.run_id, roles=opened.roles)
    return run_stream(
        streams,
        opened.run_id,
        opened.after,
        slot,
        encoder=AgUiStream(translator),
        headers={RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )


@post(
    "/ag-ui/{assistant_id:str}",
    operation_id="runAgUiGraph",
    tags=["turns"],
    status_code=200,
    summary="Run a registered graph over AG-UI 1.0: a new run of the thread, or the answer to its interrupt",
    operation_class=AgUiOperation,
    responses=problem_responses(401, 403, 404, 409, 413, 422, 429, 503),
)
async def ag_ui_graph(
    assistant_id: AssistantId,
    *,
    data: JSONBody[AgUiGraphRunInput],
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    threads: NamedDependency[ThreadBook],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> Stream:
    registered = graph_named(graphs, assistant_id)
    turn = graph_turn(data, registered)
    config, context = run_options(data)
    async with held_slot(quota, principal) as slot:
        opened = await open_graph_run(
            runs,
            threads,
            registered,
            data.thread_id,
            turn,
            principal=principal,
            modes=AG_UI_MODES,
            config=config,
            context=context,
            field_prefix="forwardedProps.",
        )
    translator = AgUiTranslator(thread_id=data.thread_id, run_id=data.run_id, roles=opened.roles)
    return run_stream(
        streams,
        opened.run_id,
        opened.after,
        slot,
        encoder=AgUiStream(translator),
        headers={RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )
