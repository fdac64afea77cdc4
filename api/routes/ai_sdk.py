"""``POST /ai-sdk/chat`` and ``GET /ai-sdk/chat/{id}/stream`` (the support agent), ``POST /ai-sdk/{assistant_id}/chat``
and ``GET /ai-sdk/{assistant_id}/chat/{id}/stream`` (any registered graph): the AI SDK's chat clients (``useChat``)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

from litestar import Response, get
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter

from agent.graphs import SUPPORT_GRAPH_ID
from api.ai_sdk import UI_MESSAGE_STREAM_HEADERS, UIMessageStream, UIMessageTranslator, requested_turn
from api.ai_sdk.openapi import AiSdkChatOperation, AiSdkReconnectOperation
from api.ai_sdk.translate import tool_approval_id
from api.chat_runs import AI_SDK_MODES, OpenedRun, open_graph_run, open_support_run
from api.graph_runs import graph_named
from api.openapi import ENDED_STREAM_RESPONSE, RUN_ID_HEADER, SESSION_ID_HEADER, SESSION_ID_PATTERN, problem_responses
from api.routes._params import AssistantId
from api.routes._router import grouped
from api.routes._services import CHAT_STARTS, RUN_SERVICES, RunServices, turn_route
from api.run_streams import held_slot, open_slot, run_stream
from contracts.ai_sdk import AiSdkChatRequest

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar import Router

    from api.runs.stream.slot import StreamSlot

__all__ = ("ai_sdk_chat", "ai_sdk_graph_chat", "ai_sdk_graph_reconnect", "ai_sdk_reconnect", "ai_sdk_router")

ChatId = Annotated[
    str, PathParameter(pattern=SESSION_ID_PATTERN, description="The chat's id (`id` of its POSTs): the thread.")
]
_starts_chat = partial(turn_route, operation_class=AiSdkChatOperation, responses=CHAT_STARTS)
_reconnects = partial(
    get,
    tags=["turns"],
    operation_class=AiSdkReconnectOperation,
    responses={204: ENDED_STREAM_RESPONSE, **problem_responses(401, 404, 422, 429)},
    dependencies=RUN_SERVICES,
)


@_starts_chat(
    "/chat",
    operation_id="aiSdkChat",
    summary="Run the agent for the AI SDK's useChat: a new message, or the answer to a tool approval request",
)
async def ai_sdk_chat(data: JSONBody[AiSdkChatRequest], *, services: NamedDependency[RunServices]) -> Response[Any]:
    turn = requested_turn(data)
    async with held_slot(services.quota, services.principal) as slot:
        opened = await open_support_run(
            services.runs, services.graphs[SUPPORT_GRAPH_ID], turn, data.id, services.principal
        )
    return _stream(services, opened, slot)


@_starts_chat(
    "/{assistant_id:str}/chat",
    operation_id="aiSdkGraphChat",
    summary="Run a registered graph for the AI SDK's useChat: a new message, or the answer to a tool approval",
)
async def ai_sdk_graph_chat(
    assistant_id: AssistantId, *, data: JSONBody[AiSdkChatRequest], services: NamedDependency[RunServices]
) -> Response[Any]:
    registered = graph_named(services.graphs, assistant_id)
    turn = requested_turn(data, registered)
    async with held_slot(services.quota, services.principal) as slot:
        opened = await open_graph_run(
            services.runs,
            services.threads,
            registered,
            data.id,
            turn,
            principal=services.principal,
            modes=AI_SDK_MODES,
            config=data.config,
            context=data.context,
        )
    return _stream(services, opened, slot)


@_reconnects(
    "/chat/{chat_id:str}/stream",
    operation_id="aiSdkReconnect",
    summary="Resume the AI SDK chat's active run: replayed from its start, then followed",
)
async def ai_sdk_reconnect(chat_id: ChatId, *, services: NamedDependency[RunServices]) -> Response[Any]:
    return await _reconnect(services, chat_id, services.graphs[SUPPORT_GRAPH_ID].node_roles)


@_reconnects(
    "/{assistant_id:str}/chat/{chat_id:str}/stream",
    operation_id="aiSdkGraphReconnect",
    summary="Resume the AI SDK chat's active run of a registered graph: replayed from its start, then followed",
)
async def ai_sdk_graph_reconnect(
    assistant_id: AssistantId, *, chat_id: ChatId, services: NamedDependency[RunServices]
) -> Response[Any]:
    return await _reconnect(services, chat_id, graph_named(services.graphs, assistant_id).node_roles)


async def _reconnect(services: RunServices, chat_id: str, roles: dict[str, str]) -> Response[Any]:
    """The chat's active run replayed from its start, then followed; a 204 (the AI SDK's "nothing to resume") when
    it has none."""
    run_id = await services.runs.active_run_of(chat_id, services.principal)
    if run_id is None:
        return Response(None, status_code=204)
    slot = await open_slot(services.quota, services.principal)
    return _stream(services, OpenedRun(run_id, chat_id, 0, roles), slot)


def _stream(services: RunServices, opened: OpenedRun, slot: StreamSlot) -> Response[Any]:
    decision = opened.decision
    translator = UIMessageTranslator(
        message_id=opened.run_id,
        deciding=None if decision is None else tool_approval_id(decision.run_id, decision.approval_id),
        tool_call_id=None if decision is None else decision.tool_call_id,
        approved=None if decision is None else decision.approved,
        roles=opened.roles,
    )
    return run_stream(
        services.streams,
        opened.run_id,
        opened.after,
        slot,
        encoder=UIMessageStream(translator),
        headers={**UI_MESSAGE_STREAM_HEADERS, RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )


def ai_sdk_router(*, body_checks: Sequence[Any]) -> Router:
    """``/ai-sdk``: the AI SDK's chats of the support agent and of a registered graph, and their reconnects."""
    return grouped(
        "/ai-sdk",
        [ai_sdk_chat, ai_sdk_reconnect, ai_sdk_graph_chat, ai_sdk_graph_reconnect],
        body_checks=body_checks,
    )
