"""``POST /ai-sdk/chat`` and ``GET /ai-sdk/chat/{id}/stream`` (the support agent), ``POST /ai-sdk/{assistant_id}/chat``
and ``GET /ai-sdk/{assistant_id}/chat/{id}/stream`` (any registered graph): the AI SDK's chat clients (``useChat``)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter

from agent.graphs import SUPPORT_GRAPH_ID, GraphRegistry
from api.ai_sdk import UI_MESSAGE_STREAM_HEADERS, UIMessageStream, UIMessageTranslator, requested_turn
from api.ai_sdk.openapi import AiSdkChatOperation, AiSdkReconnectOperation
from api.ai_sdk.translate import tool_approval_id
from api.auth import Principal
from api.chat_runs import AI_SDK_MODES, OpenedRun, open_graph_run, open_support_run
from api.graph_runs import graph_named
from api.openapi import ENDED_STREAM_RESPONSE, RUN_ID_HEADER, SESSION_ID_HEADER, SESSION_ID_PATTERN, problem_responses
from api.run_streams import held_slot, open_slot, run_stream
from api.runs.cluster.quotas import StreamQuota
from api.runs.registry import RunRegistry
from api.runs.stream.follow import RunStreams
from api.runs.stream.slot import StreamSlot
from api.runs.threads import ThreadBook
from contracts.ai_sdk import AiSdkChatRequest

__all__ = ("ai_sdk_chat", "ai_sdk_graph_chat", "ai_sdk_graph_reconnect", "ai_sdk_reconnect")

ChatId = Annotated[
    str, PathParameter(pattern=SESSION_ID_PATTERN, description="The chat's id (`id` of its POSTs): the thread.")
]
AssistantId = Annotated[
    str, PathParameter(description="A registered graph: its assistant id (a UUID) or its graph id, e.g. `react_agent`.")
]
_STARTS = problem_responses(401, 403, 404, 409, 413, 422, 429, 503)
_RECONNECTS = {204: ENDED_STREAM_RESPONSE, **problem_responses(401, 404, 422, 429)}


@post(
    "/ai-sdk/chat",
    operation_id="aiSdkChat",
    tags=["turns"],
    status_code=200,
    summary="Run the agent for the AI SDK's useChat: a new message, or the answer to a tool approval request",
    operation_class=AiSdkChatOperation,
    responses=_STARTS,
)
async def ai_sdk_chat(
    data: JSONBody[AiSdkChatRequest],
    *,
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> Response[Any]:
    turn = requested_turn(data)
    async with held_slot(quota, principal) as slot:
        opened = await open_support_run(runs, graphs[SUPPORT_GRAPH_ID], turn, data.id, principal)
    return _stream(streams, opened, slot)


@post(
    "/ai-sdk/{assistant_id:str}/chat",
    operation_id="aiSdkGraphChat",
    tags=["turns"],
    status_code=200,
    summary="Run a registered graph for the AI SDK's useChat: a new message, or the answer to a tool approval",
    operation_class=AiSdkChatOperation,
    responses=_STARTS,
)
async def ai_sdk_graph_chat(
    assistant_id: AssistantId,
    *,
    data: JSONBody[AiSdkChatRequest],
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    threads: NamedDependency[ThreadBook],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> Response[Any]:
    registered = graph_named(graphs, assistant_id)
    turn = requested_turn(data, registered)
    async with held_slot(quota, principal) as slot:
        opened = await open_graph_run(
            runs,
            threads,
            registered,
            data.id,
            turn,
            principal=principal,
            modes=AI_SDK_MODES,
            config=data.config,
            context=data.context,
        )
    return _stream(streams, opened, slot)


@get(
    "/ai-sdk/chat/{chat_id:str}/stream",
    operation_id="aiSdkReconnect",
    tags=["turns"],
    summary="Resume the AI SDK chat's active run: replayed from its start, then followed",
    operation_class=AiSdkReconnectOperation,
    responses=_RECONNECTS,
)
async def ai_sdk_reconnect(
    chat_id: ChatId,
    *,
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> Response[Any]:
    opened = await _active(runs, chat_id, principal, graphs[SUPPORT_GRAPH_ID].node_roles)
    return (
        Response(None, status_code=204)
        if opened is None
        else _stream(streams, opened, await open_slot(quota, principal))
    )


@get(
    "/ai-sdk/{assistant_id:str}/chat/{chat_id:str}/stream",
    operation_id="aiSdkGraphReconnect",
    tags=["turns"],
    summary="Resume the AI SDK chat's active run of a registered graph: replayed from its start, then followed",
    operation_class=AiSdkReconnectOperation,
    responses=_RECONNECTS,
)
async def ai_sdk_graph_reconnect(
    assistant_id: AssistantId,
    *,
    chat_id: ChatId,
    runs: NamedDependency[RunRegistry],
    graphs: NamedDependency[GraphRegistry],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
) -> Response[Any]:
    opened = await _active(runs, chat_id, principal, graph_named(graphs, assistant_id).node_roles)
    return (
        Response(None, status_code=204)
        if opened is None
        else _stream(streams, opened, await open_slot(quota, principal))
    )


async def _active(runs: RunRegistry, chat_id: str, principal: Principal, roles: dict[str, str]) -> OpenedRun | None:
    """The chat's active run, to replay from its start; None (a 204, the AI SDK's "nothing to resume") when none."""
    run_id = await runs.active_run_of(chat_id, principal)
    return None if run_id is None else OpenedRun(run_id, chat_id, 0, roles)


def _stream(streams: RunStreams, opened: OpenedRun, slot: StreamSlot) -> Response[Any]:
    decision = opened.decision
    translator = UIMessageTranslator(
        message_id=opened.run_id,
        deciding=None if decision is None else tool_approval_id(decision.run_id, decision.approval_id),
        tool_call_id=None if decision is None else decision.tool_call_id,
        approved=None if decision is None else decision.approved,
        roles=opened.roles,
    )
    return run_stream(
        streams,
        opened.run_id,
        opened.after,
        slot,
        encoder=UIMessageStream(translator),
        headers={**UI_MESSAGE_STREAM_HEADERS, RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )
