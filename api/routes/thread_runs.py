"""The Agent Protocol's runs on a thread: create, stream, wait, list, get, join, join the stream, cancel, delete
(those on a thread of their own are ``api.routes.stateless_runs``). Every one is a run of the registry, its stream a
view of the run's durable log: ``Last-Event-ID`` resumes after any event, on any instance.

A run asked for while its thread is busy is queued (``multitask_strategy`` ``enqueue``, the default: ``pending``
until the thread is free), refused (``reject``), or started once the busy run has ended (``interrupt``) or ended and
been removed with its checkpoints (``rollback``). A run that stops at an interrupt waits (its stream ends with
``end`` ``interrupted``); the next run of the thread whose ``command.resume`` answers it continues that same run,
which keeps its id and its events' seqs.

Their paths are relative to the thread's, ``/threads/{thread_id}`` (``api.routes.agent_protocol`` groups them under
it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from litestar import Response, delete, get, post
from litestar.di import NamedDependency, Provide
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.response import Stream

from api.agent_protocol.requests import read_run_request
from api.agent_protocol.views import SUPPORT_ASSISTANT_ID, run_view
from api.auth import Principal
from api.openapi import problem_responses
from api.openapi.agent_protocol_stream import AgentProtocolStreamOperation
from api.routes._agent_protocol_runs import (
    TAG,
    CancelOnDisconnect,
    Joining,
    join_stream,
    joins_stream,
    run_result,
    start_run,
    start_streamed,
    start_waited,
    starts_run,
)
from api.routes._services import RUN_SERVICES, RunServices
from api.runs.log.records import RunRecord
from api.runs.registry import RunRegistry
from api.runs.run import Run
from api.runs.threads import ThreadBook
from contracts.agent_protocol import RunCreate, ThreadRun

__all__ = (
    "cancel_thread_run",
    "create_thread_run",
    "delete_thread_run",
    "get_thread_run",
    "join_run",
    "join_run_stream",
    "list_thread_runs",
    "stream_thread_run",
    "wait_thread_run",
)

_READS = problem_responses(401, 404)


def _of_a_run(
    route: type[HTTPRouteHandler], path: str, *, responses: Mapping[int, ResponseSpec] = _READS, **kwargs: Any
) -> HTTPRouteHandler:
    """A route of one run of the thread: ``run``, found by the thread and run ids of its path (a 404 when the thread
    has no such run the caller may read), and ``services``."""
    dependencies = {**RUN_SERVICES, "run": Provide(_run_of_thread)}
    return route(path, tags=[TAG], responses=responses, dependencies=dependencies, **kwargs)


class _RunOfThread:
    """The run a route's path names, and its thread. A plain class: Litestar checks a dependency's value against
    its type, and a union of two classes (``Run | RunRecord``) is no type it checks."""

    __slots__ = ("found", "thread_id")

    def __init__(self, found: Run | RunRecord, thread_id: str) -> None:
        self.found = found
        self.thread_id = thread_id


async def _run_of_thread(
    thread_id: FromPath[str], run_id: FromPath[str], services: NamedDependency[RunServices]
) -> _RunOfThread:
    return _RunOfThread(await services.runs.get(run_id, services.principal, session_id=thread_id), thread_id)


@starts_run(
    "/runs",
    operation_id="createThreadRun",
    summary="Start a run in the background; it goes on with nobody following it",
)
async def create_thread_run(
    thread_id: FromPath[str], data: JSONBody[RunCreate], services: NamedDependency[RunServices]
) -> Response[ThreadRun]:
    requested = read_run_request(data, services.graphs, detached=True)
    run_id, session_id, _ = await start_run(services, thread_id, requested, data)
    found = await services.runs.get(run_id, services.principal)
    return Response(
        run_view(found.record, SUPPORT_ASSISTANT_ID),
        headers={"Content-Location": f"/threads/{session_id}/runs/{run_id}"},
    )


@starts_run(
    "/runs/stream",
    operation_id="streamThreadRun",
    operation_class=AgentProtocolStreamOperation,
    summary="Start a run and stream it (SSE)",
)
async def stream_thread_run(
    thread_id: FromPath[str], data: JSONBody[RunCreate], services: NamedDependency[RunServices]
) -> Stream:
    return await start_streamed(services, thread_id, data)


@starts_run(
    "/runs/wait",
    operation_id="waitThreadRun",
    summary="Start a run and answer its result once it stops (its final state, its interrupt, or its error)",
)
async def wait_thread_run(
    thread_id: FromPath[str], data: JSONBody[RunCreate], services: NamedDependency[RunServices]
) -> Stream:
    return await start_waited(services, thread_id, data)


@get(
    "/runs",
    operation_id="listThreadRuns",
    tags=[TAG],
    summary="The thread's runs, newest first",
    responses=problem_responses(401, 404, 422),
)
async def list_thread_runs(
    thread_id: FromPath[str],
    *,
    runs: NamedDependency[RunRegistry],
    threads: NamedDependency[ThreadBook],
    principal: NamedDependency[Principal],
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 10,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> list[ThreadRun]:
    await threads.get(thread_id, principal)
    records = [found.record for run_id in await threads.run_ids(thread_id) if (found := await runs.find(run_id))]
    records.sort(key=lambda record: record.snapshot.started_at, reverse=True)
    support = SUPPORT_ASSISTANT_ID
    return [run_view(record, support) for record in records[offset : offset + limit]]


@_of_a_run(get, "/runs/{run_id:str}", operation_id="getThreadRun", summary="A run of the thread")
async def get_thread_run(run: NamedDependency[_RunOfThread]) -> ThreadRun:
    return run_view(run.found.record, SUPPORT_ASSISTANT_ID)


@_of_a_run(
    get,
    "/runs/{run_id:str}/join",
    operation_id="joinThreadRun",
    summary="Wait for the run to stop and answer its result",
    responses=problem_responses(401, 404, 422),
)
async def join_run(
    run: NamedDependency[_RunOfThread],
    services: NamedDependency[RunServices],
    cancel_on_disconnect: CancelOnDisconnect = False,
) -> Stream:
    del cancel_on_disconnect
    return run_result(services.runs, services.streams, run.found.run_id, 0, run.thread_id)


@joins_stream(
    "/runs/{run_id:str}/stream",
    operation_id="joinThreadRunStream",
    summary="Join the run's stream: replay after Last-Event-ID, then the live tail",
)
async def join_run_stream(
    thread_id: FromPath[str],
    run_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
    joining: NamedDependency[Joining],
) -> Stream:
    found = await services.runs.get(run_id, services.principal, session_id=thread_id)
    return await join_stream(services, found.record, thread_id, joining, stateless=False)


@_of_a_run(
    delete,
    "/runs/{run_id:str}",
    operation_id="deleteThreadRun",
    status_code=204,
    summary="Delete a run that has ended: its record and events (the thread's checkpoints stay)",
    responses=problem_responses(401, 403, 404, 409),
)
async def delete_thread_run(run: NamedDependency[_RunOfThread], services: NamedDependency[RunServices]) -> None:
    await services.runs.delete_run(run.found, services.principal)


@_of_a_run(
    post,
    "/runs/{run_id:str}/cancel",
    operation_id="cancelThreadRun",
    status_code=202,
    summary=(
        "Cancel the run (action `interrupt`), or cancel and remove it with its checkpoints (`rollback`); with "
        "`wait`, answer its result once it has ended"
    ),
    responses=problem_responses(401, 403, 404, 409, 422),
)
async def cancel_thread_run(
    run: NamedDependency[_RunOfThread],
    services: NamedDependency[RunServices],
    *,
    wait: Annotated[bool, QueryParameter(description="Answer the run's result once it has ended.")] = False,
    action: Annotated[
        Literal["interrupt", "rollback"],
        QueryParameter(
            description=(
                "`interrupt`: the run ends (`cancelled`); `rollback`: it ends and is removed, its checkpoints and "
                "events with it, the thread's state as before it (answered once done; `wait` then answers `null`)."
            )
        ),
    ] = "interrupt",
) -> Response[Any]:
    runs, principal, found = services.runs, services.principal, run.found
    if action == "rollback":
        await runs.multitask.cancel_rolling_back(found, principal)
        return Response(None, status_code=200 if wait else 202)
    cursor = found.current_snapshot().last_seq
    await runs.cancel(found, principal)
    if not wait:
        return Response(None, status_code=202)
    return run_result(runs, services.streams, found.run_id, cursor, run.thread_id)
