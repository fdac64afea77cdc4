"""A2A 1.0's methods on the runs of one registered graph: each opens, reads or ends a run through what every other
protocol uses (``open_graph_run``, ``RunRegistry``, ``RunStreams.follow``, ``run_stream``), and answers as A2A.

``SendMessage`` and ``SendStreamingMessage`` start a run on the message's context (a thread, made by its first
run; a new one when the message names none), or answer the interrupt its task waits at (the approver rule of
every route applies); the first answers once the task settles (or at once with ``returnImmediately``, the run
then going on with nobody following), the second streams it. ``GetTask`` is the task as its events so far make
it; ``CancelTask`` ends the run and answers the task once the end is committed; ``SubscribeToTask`` streams the
task from where it stands (or after the SSE ``Last-Event-ID`` the client names), so that a stream cut anywhere
resumes on any instance with nothing lost and nothing twice.
"""

from __future__ import annotations

import asyncio
import uuid
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import msgspec
from litestar import Response
from litestar.response import Stream

from api.a2a.errors import (
    InvalidParams,
    PushNotificationNotSupported,
    UnsupportedOperation,
)
from api.a2a.jsonrpc import read_params, result_body
from api.a2a.messages import answer_value, graph_input
from api.a2a.stream import TaskEventStream, TaskResult
from api.a2a.task import TaskProjection
from api.a2a.tasks import find_task, task_so_far
from api.a2a.types import (
    TERMINAL_STATES,
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    SendMessageConfiguration,
    SendMessageRequest,
    SendMessageResponse,
    SubscribeToTaskRequest,
)
from api.chat_runs import Decision, NewTurn, open_graph_run
from api.graph_runs import start_on_thread
from api.negotiation import EVENT_STREAM
from api.openapi import RUN_ID_HEADER, SESSION_ID_HEADER
from api.run_streams import SSE_HEADERS, held_slot, open_slot, run_stream
from api.runs.log.records import GraphRun

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, AsyncIterator

    from agent.graphs import RegisteredGraph
    from api.a2a.jsonrpc import RpcCall
    from api.auth import Principal
    from api.chat_runs import OpenedRun
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.registry import RunRegistry
    from api.runs.stream.follow import RunStreams
    from api.runs.stream.slot import StreamSlot
    from api.runs.threads import ThreadBook

__all__ = ("A2A_MODES", "A2ACalls")

A2A_MODES = ("messages", "custom")
"""What an A2A run of a graph logs: a chat model's chunks (text parts, tool calls) and custom writes (data parts)."""
_JSON = "application/json"
_CANCEL_SETTLE_S = 10.0


@dataclass(frozen=True, slots=True)
class A2ACalls:
    """The calls of one request to the A2A endpoint of ``registered``, by ``principal``."""

    registered: RegisteredGraph
    runs: RunRegistry
    threads: ThreadBook
    streams: RunStreams
    quota: StreamQuota
    principal: Principal
    last_event_id: str | None = None
    """The request's ``Last-Event-ID``: where a ``SubscribeToTask`` resumes."""

    async def answer(self, call: RpcCall) -> Response[Any]:
        if call.method in ("SendMessage", "SendStreamingMessage"):
            request = read_params(call, SendMessageRequest)
            return await self._send(call, request, streaming=call.method == "SendStreamingMessage")
        if call.method == "GetTask":
            get = read_params(call, GetTaskRequest)
            found = await find_task(self.runs, self.threads, self.registered, get.id, self.principal)
            task = (await task_so_far(self.runs, self.registered, found)).task(history_length=get.history_length)
            return _json(result_body(call.id, task))
        if call.method == "CancelTask":
            return await self._cancel(call, read_params(call, CancelTaskRequest))
        return await self._subscribe(call, read_params(call, SubscribeToTaskRequest))

    # --- sending a message ---

    async def _send(self, call: RpcCall, request: SendMessageRequest, *, streaming: bool) -> Response[Any]:
        message = request.message
        config = request.configuration or SendMessageConfiguration()
        if config.task_push_notification_config is not None:
            raise PushNotificationNotSupported("This agent sends no push notifications; stream, or poll GetTask.")
        if message.task_id:
            return await self._answer(call, message, config, streaming=streaming)
        context_id = message.context_id or _new_context()
        turn = NewTurn(graph_input(self.registered, message))
        client_message = _of_task(message, context_id, None)
        if config.return_immediately and not streaming:
            return await self._start_detached(call, turn, client_message, context_id)
        async with held_slot(self.quota, self.principal) as slot:
            opened = await open_graph_run(
                self.runs, self.threads, self.registered, context_id, turn, principal=self.principal, modes=A2A_MODES
            )
        projection = TaskProjection(
            task_id=opened.run_id,
            context_id=opened.session_id,
            roles=opened.roles,
            history=[_of_task(client_message, opened.session_id, opened.run_id)],
        )
        return self._respond(call, config, opened, projection, slot, streaming=streaming)

    async def _answer(
        self, call: RpcCall, message: Message, config: SendMessageConfiguration, *, streaming: bool
    ) -> Response[Any]:
        """The message answers the interrupt its task waits at: the run goes on from there."""
        found = await find_task(self.runs, self.threads, self.registered, message.task_id, self.principal)
        snapshot = found.current_snapshot()
        if message.context_id and message.context_id != snapshot.session_id:
            raise InvalidParams(f"Task {found.run_id} is of context {snapshot.session_id}, not {message.context_id}.")
        if snapshot.status != "waiting":
            raise UnsupportedOperation(
                f"Task {found.run_id} is {snapshot.status}, not waiting for input: a message continues a task only "
                "in its input-required state (send one without taskId to start the next task of the context)."
            )
        pending = snapshot.pending_approval
        value = answer_value(message)
        decision = Decision(run_id=found.run_id, approval_id=pending.approval_id if pending else "", value=value)
        async with held_slot(self.quota, self.principal) as slot:
            opened = await open_graph_run(
                self.runs,
                self.threads,
                self.registered,
                snapshot.session_id,
                decision,
                principal=self.principal,
                modes=A2A_MODES,
            )
            projection = await task_so_far(self.runs, self.registered, found, upto=opened.after)
        projection.answered(_of_task(message, opened.session_id, opened.run_id))
        return self._respond(call, config, opened, projection, slot, streaming=streaming)

    def _respond(
        self,
        call: RpcCall,
        config: SendMessageConfiguration,
        opened: OpenedRun,
        projection: TaskProjection,
        slot: StreamSlot,
        *,
        streaming: bool,
    ) -> Response[Any]:
        """The opened run's task from ``opened.after`` on: its SSE stream, or its result once it settles."""
        headers = {RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id}
        if streaming:
            encoder = TaskEventStream(projection, call.id, history_length=config.history_length)
            return run_stream(self.streams, opened.run_id, opened.after, slot, encoder=encoder, headers=headers)
        result = TaskResult(projection, call.id, history_length=config.history_length)
        body = _settled_body(self.streams.follow(opened.run_id, opened.after, result), result)
        return Stream(slot.hold(body), media_type=_JSON, headers=headers)

    async def _start_detached(
        self, call: RpcCall, turn: NewTurn, client_message: Message, context_id: str
    ) -> Response[Any]:
        """``returnImmediately``: the run goes on with nobody following it (as a background run), the task answered
        as submitted."""
        options = GraphRun(
            graph_id=self.registered.graph_id,
            assistant_id=self.registered.assistant_id,
            modes=list(A2A_MODES),
            stream_modes=list(A2A_MODES),
            subgraphs=True,
            detached=True,
        )
        run = await start_on_thread(
            self.runs,
            self.threads,
            self.registered,
            context_id,
            turn.graph_input,
            options=options,
            principal=self.principal,
            create=True,
        )
        projection = TaskProjection(
            task_id=run.run_id,
            context_id=run.session_id,
            history=[_of_task(client_message, run.session_id, run.run_id)],
        )
        return _json(result_body(call.id, SendMessageResponse(task=projection.task())))

    # --- a task's life ---

    async def _cancel(self, call: RpcCall, request: CancelTaskRequest) -> Response[Any]:
        found = await find_task(self.runs, self.threads, self.registered, request.id, self.principal)
        await self.runs.cancel(found, self.principal)
        projection = await task_so_far(self.runs, self.registered, found)
        if not projection.settled:  # ended elsewhere, or not committed yet: follow it to its end, briefly
            projection = await self._until_settled(projection)
        return _json(result_body(call.id, projection.task()))

    async def _until_settled(self, projection: TaskProjection) -> TaskProjection:
        follow = self.streams.follow(projection.task_id, projection.seq, TaskResult(projection, None))
        try:
            async with asyncio.timeout(_CANCEL_SETTLE_S), aclosing(cast("AsyncGenerator[bytes]", follow)) as events:
                async for _ in events:
                    pass
        except TimeoutError:
            pass  # the task as it stands: canceled once its executor, elsewhere, hears of it
        return projection

    async def _subscribe(self, call: RpcCall, request: SubscribeToTaskRequest) -> Response[Any]:
        found = await find_task(self.runs, self.threads, self.registered, request.id, self.principal)
        upto = _seq(self.last_event_id)
        slot = await open_slot(self.quota, self.principal)
        try:
            projection = await task_so_far(self.runs, self.registered, found, upto=upto)
        except BaseException:
            await slot.release()
            raise
        if projection.state in TERMINAL_STATES and upto is None:
            await slot.release()
            raise UnsupportedOperation(f"Task {found.run_id} has ended ({projection.state}): GetTask reads it.")
        encoder = TaskEventStream(projection, call.id)
        headers = {RUN_ID_HEADER: found.run_id, SESSION_ID_HEADER: projection.context_id}
        if projection.settled:  # it waits for its client (or a replay reached its end): the task is all there is
            await slot.release()
            return Stream(iter([encoder.opening]), media_type=EVENT_STREAM, headers={**SSE_HEADERS, **headers})
        return run_stream(self.streams, found.run_id, projection.seq, slot, encoder=encoder, headers=headers)


async def _settled_body(follow: AsyncIterator[bytes], result: TaskResult) -> AsyncIterator[bytes]:
    """A blocking call's body: the follow's keepalives, then its answer, or the task as far as it came when the
    follow ended first (it lasted ``HARNESS_STREAM_MAX_S``, or the service is shutting down): a task still working."""
    answered = False
    async for chunk in follow:
        answered = answered or result.finished(())
        yield chunk
    if not answered:
        yield result.answer()


def _of_task(message: Message, context_id: str, task_id: str | None) -> Message:
    """The client's message as the task's history holds it."""
    return msgspec.structs.replace(message, context_id=context_id, task_id=task_id or "", role="ROLE_USER")


def _new_context() -> str:
    """A context id of the service's: letters only (never shaped like a number the service refuses as an id)."""
    return "ctx-" + "".join(chr(97 + byte % 26) for byte in uuid.uuid4().bytes)


def _seq(last_event_id: str | None) -> int | None:
    if last_event_id is None or not last_event_id.strip().isdigit():
        return None
    return int(last_event_id.strip())


def _json(body: bytes) -> Response[bytes]:
    return Response(body, media_type=_JSON, status_code=200)
