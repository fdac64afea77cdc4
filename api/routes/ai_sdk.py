"""``POST /ai-sdk/chat`` and ``GET /ai-sdk/chat/{id}/stream``: the agent for the AI SDK's chat clients (``useChat``)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, PathParameter

from api.ai_sdk import UI_MESSAGE_STREAM_HEADERS, UIMessageStream, UIMessageTranslator, active_run, open_run
from api.ai_sdk.openapi import AiSdkChatOperation, AiSdkReconnectOperation
from api.ai_sdk.request import requested_turn
from api.auth import Principal
from api.openapi import ENDED_STREAM_RESPONSE, RUN_ID_HEADER, SESSION_ID_HEADER, SESSION_ID_PATTERN, problem_responses
from api.run_streams import open_slot, run_stream
from api.runs.registry import RunRegistry
from contracts.ai_sdk import AiSdkChatRequest

__all__ = ("ai_sdk_chat", "ai_sdk_reconnect")


@post(
    "/ai-sdk/chat",
    operation_id="aiSdkChat",
    tags=["turns"],
    status_code=200,
    summary="Run the agent for the AI SDK's useChat: a new message, or the answer to a tool approval request",
    operation_class=AiSdkChatOperation,
    responses=problem_responses(401, 403, 404, 409, 413, 422, 429, 503),
)
async def ai_sdk_chat(
    data: JSONBody[AiSdkChatRequest], runs: NamedDependency[RunRegistry], principal: NamedDependency[Principal]
) -> Response[Any]:
    turn = requested_turn(data)
    slot = await open_slot(runs, principal)
    try:
        opened = await open_run(runs, turn, principal)
    except BaseException:
        await slot.release()
        raise
    translator = UIMessageTranslator(message_id=opened.run_id, deciding=opened.deciding)
    return run_stream(
        runs,
        opened.run_id,
        opened.after,
        slot,
        encoder=UIMessageStream(translator),
        headers={**UI_MESSAGE_STREAM_HEADERS, RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id},
    )


@get(
    "/ai-sdk/chat/{chat_id:str}/stream",
    operation_id="aiSdkReconnect",
    tags=["turns"],
    summary="Resume the AI SDK chat's active run: replayed from its start, then followed",
    operation_class=AiSdkReconnectOperation,
    responses={
        204: ENDED_STREAM_RESPONSE,
        **problem_responses(401, 404, 422, 429),
    },
)
async def ai_sdk_reconnect(
    chat_id: Annotated[
        str, PathParameter(pattern=SESSION_ID_PATTERN, description="The chat's id (`id` of its POSTs): the session.")
    ],
    runs: NamedDependency[RunRegistry],
    principal: NamedDependency[Principal],
) -> Response[Any]:
    run_id = await active_run(runs, chat_id, principal)
    if run_id is None:
        return Response(None, status_code=204)  # the AI SDK's "nothing to resume"
    translator = UIMessageTranslator(message_id=run_id)
    return run_stream(
        runs,
        run_id,
        0,
        await open_slot(runs, principal),
        encoder=UIMessageStream(translator),
        headers={**UI_MESSAGE_STREAM_HEADERS, RUN_ID_HEADER: run_id, SESSION_ID_HEADER: chat_id},
    )
