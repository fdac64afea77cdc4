"""``POST /chat`` and ``POST /chat/resume``: one handler each, answering JSON or SSE from the same run."""

from __future__ import annotations

import asyncio
import time
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from litestar import Request, Response
from litestar.di import NamedDependency
from litestar.params import JSONBody

from api.auth import Principal
from api.auth.streams import hold_stream
from api.exceptions import RunCancelled, TokenRejected, TurnFailed
from api.negotiation import wants_event_stream
from api.openapi import RUN_ID_HEADER, SESSION_ID_HEADER, ResumeOperation, TurnOperation, problem_responses
from api.routes._services import RunServices, turn_route
from api.run_streams import held_slot, no_slot, run_stream
from contracts import ChatRequest, ChatResponse, ResumeRequest

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from api.runs.registry import RunRegistry
    from api.runs.run import Run
    from api.runs.stream.slot import StreamSlot

__all__ = ("chat", "resume_chat")

CLIENT_CLOSED_REQUEST = 499


@turn_route(
    "/chat",
    operation_id="chat",
    summary="Send a message: one turn of the agent",
    operation_class=TurnOperation,
    responses=problem_responses(401, 404, 409, 413, 422, 429, 500, 502, 503),
)
async def chat(
    data: JSONBody[ChatRequest], *, request: Request[Any, Any, Any], services: NamedDependency[RunServices]
) -> Response[Any]:
    async with _slot_if_streaming(request, services) as slot:
        run = await services.runs.start_turn(data.message, data.session_id, services.principal)
    return await _answer(request, services, run, after=0, slot=slot)


@turn_route(
    "/chat/resume",
    operation_id="resumeChat",
    summary="Approve or reject the action a paused run waits for",
    operation_class=ResumeOperation,
    responses=problem_responses(401, 403, 404, 409, 413, 422, 429, 500, 502, 503),
)
async def resume_chat(
    data: JSONBody[ResumeRequest], *, request: Request[Any, Any, Any], services: NamedDependency[RunServices]
) -> Response[Any]:
    async with _slot_if_streaming(request, services) as slot:
        run, cursor = await services.runs.resume(data, services.principal)
    return await _answer(request, services, run, after=cursor, slot=slot)


def _slot_if_streaming(
    request: Request[Any, Any, Any], services: RunServices
) -> AbstractAsyncContextManager[StreamSlot]:
    """A stream slot taken before the turn starts, so a 429 changes nothing; an empty one for JSON."""
    if wants_event_stream(request.headers.get("accept")):
        return held_slot(services.quota, services.principal)
    return nullcontext(no_slot(services.quota))


async def _answer(
    request: Request[Any, Any, Any],
    services: RunServices,
    run: Run,
    *,
    after: int,
    slot: StreamSlot,
) -> Response[Any]:
    names = {RUN_ID_HEADER: run.run_id, SESSION_ID_HEADER: run.session_id}
    if wants_event_stream(request.headers.get("accept")):
        return run_stream(services.streams, run.run_id, after, slot, headers=names)
    await _wait_settled(request, services.runs, run, after)
    if not (run.fenced or run.settled_after(after)):
        return Response(None, status_code=CLIENT_CLOSED_REQUEST)  # nobody is there to read it
    return Response(_outcome(run), headers=names)


async def _wait_settled(request: Request[Any, Any, Any], runs: RunRegistry, run: Run, after: int) -> None:
    """Wait until the run settles after ``after`` or the client leaves. The wait is held as a stream is
    (``hold_stream``): when the token it was made with stops standing, it ends with a ``401`` (the run goes on)."""
    held = hold_stream(request.scope)
    try:
        with runs.subscribed(run.run_id):
            settled = asyncio.ensure_future(run.wait_settled(after))
            left = asyncio.ensure_future(_disconnected(request))
            try:
                await asyncio.wait({settled, left}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                settled.cancel()
                left.cancel()
    except asyncio.CancelledError:
        if held is None or not held.ended:
            raise
        task = asyncio.current_task()
        assert task is not None
        task.uncancel()
        raise _no_longer_stands(held.principal) from None
    finally:
        if held is not None:
            held.release()


def _no_longer_stands(principal: Principal) -> TokenRejected:
    """What a request made with ``principal``'s token would be told now: its JWT expired, or it was revoked."""
    if principal.expires_at is not None and principal.expires_at <= time.time():
        return TokenRejected("token_expired", "The bearer token expired while the turn ran; the run goes on.")
    return TokenRejected("token_unknown", "The bearer token was revoked while the turn ran; the run goes on.")


def _outcome(run: Run) -> ChatResponse:
    if run.fenced:
        raise TurnFailed(
            "instance_lost", "This instance lost the run to another one; read it with GET /runs.", run_id=run.run_id
        )
    snapshot = run.record.snapshot
    if snapshot.status in ("failed", "cancelled"):
        assert snapshot.error is not None, "a run that failed says why"
        if snapshot.error.code == "cancelled":
            raise RunCancelled(snapshot.error.message, run_id=run.run_id)
        raise TurnFailed(snapshot.error.code, snapshot.error.message, run_id=run.run_id)
    assert snapshot.response is not None, "a settled run has a response"
    return snapshot.response


async def _disconnected(request: Request[Any, Any, Any]) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass
