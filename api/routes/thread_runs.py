"""The Agent Protocol's runs: on a thread (create, stream, wait, list, get, join, join the stream, cancel,
delete) and stateless (on a thread of their own). Every one is a run of the registry, its stream a view of the run's
durable log: ``Last-Event-ID`` resumes after any event, on any instance.

A run asked for while its thread is busy is queued (``multitask_strategy`` ``enqueue``, the default: ``pending``
until the thread is free), refused (``reject``), or started once the busy run has ended (``interrupt``) or ended and
been removed with its checkpoints (``rollback``). A run that stops at an interrupt waits (its stream ends with
``end`` ``interrupted``); the next run of the thread whose ``command.resume`` answers it continues that same run,
which keeps its id and its events' seqs.

The runs of a thread have paths relative to the thread's, ``/threads/{thread_id}`` (``api.routes.agent_protocol``
groups them under it); the stateless runs' paths are the root's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from litestar import Response, delete, get, post
from litestar.di import NamedDependency, Provide
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from api.agent_protocol.requests import RequestedRun, read_run_request
from api.agent_protocol.results import result_body
from api.agent_protocol.stream import AgentProtocolStream
from api.agent_protocol.views import SUPPORT_ASSISTANT_ID, run_view
from api.auth import Principal
from api.graph_runs import answer_on_thread, run_on_thread
from api.openapi import problem_responses
from api.openapi.agent_protocol_stream import AgentProtocolStreamOperation
from api.routes._services import RUN_SERVICES, RunServices
from api.run_streams import held_slot, open_slot, run_stream
from api.runs.errors import RunNotPaused
from api.runs.log.records import RunRecord
from api.runs.registry import RunRegistry
from api.runs.run import Run
from api.runs.stream.follow import RunStreams
from api.runs.threads import ThreadBook
from api.streaming_response import EventStream
from contracts.agent_protocol import RunCreate, ThreadRun

__all__ = (
    "cancel_thread_run",
    "create_thread_run",
    "delete_thread_run",
    "get_thread_run",
    "join_run",
    "join_run_stream",
    "join_stateless_run_stream",
    "list_thread_runs",
    "stream_stateless_run",
    "stream_thread_run",
    "wait_stateless_run",
    "wait_thread_run",
)

TAG = "agent-protocol"
_JSON = "application/json"
_STARTS = problem_responses(401, 403, 404, 409, 413, 415, 422, 429, 503)
_READS = problem_responses(401, 404)
LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        pattern=r"^(-1|[0-9]{1,12})$",
        description="The `id` of the last event received; `-1` (or none) replays the run from its start.",
    ),
]
StreamModes = Annotated[
    list[str] | None,
    QueryParameter(description="The stream modes to send (repeated); none: every mode the run streams."),
]
CancelOnDisconnect = Annotated[
    bool,
    QueryParameter(
        description=(
            "Accepted as the SDKs send it (`true`/`false`, `1`/`0`). A join that leaves cancels nothing by itself: "
            "the run's own `on_disconnect` decides (`cancel`: the run ends once nobody has followed it for the "
            "service's disconnect grace)."
        )
    ),
]


@dataclass(frozen=True, slots=True)
class _Joining:
    """What a join of a run's stream asks for: where to resume, and in which modes."""

    last_event_id: str | None
    stream_mode: list[str] | None


def _joining(
    last_event_id: LastEventId = None,
    stream_mode: StreamModes = None,
    cancel_on_disconnect: CancelOnDisconnect = False,
) -> _Joining:
    del cancel_on_disconnect
    return _Joining(last_event_id, stream_mode)


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


_starts_run = partial(post, tags=[TAG], status_code=200, responses=_STARTS, dependencies=RUN_SERVICES)
"""A route that starts a run (on the thread in its path, or on a thread of its own)."""
_joins_stream = partial(
    get,
    operation_class=AgentProtocolStreamOperation,
    tags=[TAG],
    responses=problem_responses(401, 404, 422, 429),
    dependencies={**RUN_SERVICES, "joining": Provide(_joining, sync_to_thread=False)},
)
"""A route that joins a run's stream (found by its thread and id, or by its id alone)."""


@_starts_run(
    "/runs",
    operation_id="createThreadRun",
    summary="Start a run in the background; it goes on with nobody following it",
)
async def create_thread_run(
    thread_id: FromPath[str], data: JSONBody[RunCreate], services: NamedDependency[RunServices]
) -> Response[ThreadRun]:
    requested = read_run_request(data, services.graphs, detached=True)
    run_id, session_id, _ = await _start(services, thread_id, requested, data)
    found = await services.runs.get(run_id, services.principal)
    return Response(
        run_view(found.record, SUPPORT_ASSISTANT_ID),
        headers={"Content-Location": f"/threads/{session_id}/runs/{run_id}"},
    )


@_starts_run(
    "/runs/stream",
    operation_id="streamThreadRun",
    operation_class=AgentProtocolStreamOperation,
    summary="Start a run and stream it (SSE)",
)
async def stream_thread_run(
    thread_id: FromPath[str], data: JSONBody[RunCreate], services: NamedDependency[RunServices]
) -> Stream:
    return await _start_streamed(services, thread_id, data)


@_starts_run(
    "/runs/wait",
    operation_id="waitThreadRun",
    summary="Start a run and answer its result once it stops (its final state, its interrupt, or its error)",
)
async def wait_thread_run(
    thread_id: FromPath[str], data: JSONBody[RunCreate], services: NamedDependency[RunServices]
) -> Stream:
    return await _start_waited(services, thread_id, data)


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
    return _result(services.runs, services.streams, run.found.run_id, 0, run.thread_id)


@_joins_stream(
    "/runs/{run_id:str}/stream",
    operation_id="joinThreadRunStream",
    summary="Join the run's stream: replay after Last-Event-ID, then the live tail",
)
async def join_run_stream(
    thread_id: FromPath[str],
    run_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
    joining: NamedDependency[_Joining],
) -> Stream:
    found = await services.runs.get(run_id, services.principal, session_id=thread_id)
    return await _join(services, found.record, thread_id, joining, stateless=False)


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
        await runs.cancel_rolling_back(found, principal)
        return Response(None, status_code=200 if wait else 202)
    cursor = found.current_snapshot().last_seq
    await runs.cancel(found, principal)
    if not wait:
        return Response(None, status_code=202)
    return _result(runs, services.streams, found.run_id, cursor, run.thread_id)


# the stateless runs, at the root


@_starts_run(
    "/runs/stream",
    operation_id="streamStatelessRun",
    operation_class=AgentProtocolStreamOperation,
    summary="Start a run on a thread of its own and stream it (SSE)",
)
async def stream_stateless_run(data: JSONBody[RunCreate], services: NamedDependency[RunServices]) -> Stream:
    return await _start_streamed(services, None, data)


@_starts_run(
    "/runs/wait",
    operation_id="waitStatelessRun",
    summary="Start a run on a thread of its own and answer its result once it stops",
)
async def wait_stateless_run(data: JSONBody[RunCreate], services: NamedDependency[RunServices]) -> Stream:
    return await _start_waited(services, None, data)


@_joins_stream(
    "/runs/{run_id:str}/stream",
    operation_id="joinStatelessRunStream",
    summary="Join a run's stream by its id alone: replay after Last-Event-ID, then the live tail",
)
async def join_stateless_run_stream(
    run_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
    joining: NamedDependency[_Joining],
) -> Stream:
    found = await services.runs.get(run_id, services.principal)
    return await _join(services, found.record, found.record.snapshot.session_id, joining, stateless=True)


async def _start_streamed(services: RunServices, thread_id: str | None, data: RunCreate) -> Stream:
    requested = read_run_request(data, services.graphs, detached=data.on_disconnect == "continue")
    async with held_slot(services.quota, services.principal) as slot:
        run_id, session_id, after = await _start(services, thread_id, requested, data)
    encoder = AgentProtocolStream(thread_id=session_id, modes=requested.modes, subgraphs=data.stream_subgraphs)
    headers = _locations(run_id, session_id, stateless=thread_id is None)
    return run_stream(services.streams, run_id, after, slot, encoder=encoder, headers=headers)


async def _start_waited(services: RunServices, thread_id: str | None, data: RunCreate) -> Stream:
    requested = read_run_request(data, services.graphs, detached=data.on_disconnect == "continue")
    run_id, session_id, after = await _start(services, thread_id, requested, data)
    return _result(services.runs, services.streams, run_id, after, session_id)


async def _start(
    services: RunServices, thread_id: str | None, requested: RequestedRun, data: RunCreate
) -> tuple[str, str, int]:
    """Start (or resume) the run on the thread; its id, its thread's, and the seq its stream starts after."""
    runs, threads, principal = services.runs, services.threads, services.principal
    if requested.resumes:
        if thread_id is None:
            raise RunNotPaused("A run on a thread of its own has no interrupt to answer: send `input`.")
        run, after = await answer_on_thread(
            runs,
            threads,
            requested.registered,
            thread_id,
            requested.resume,
            options=requested.options,
            principal=principal,
        )
        return run.run_id, run.session_id, after
    found = await run_on_thread(
        runs,
        threads,
        requested.registered,
        thread_id,
        requested.input,
        strategy=data.multitask_strategy,
        options=requested.options,
        principal=principal,
        create=data.if_not_exists == "create",
    )
    return found.run_id, found.record.snapshot.session_id, 0


async def _join(
    services: RunServices,
    record: RunRecord,
    thread_id: str,
    joining: _Joining,
    *,
    stateless: bool,
) -> Stream:
    """The run's stream after ``last_event_id``, in the modes asked for; with none, in those the run's own requests
    asked for (an SDK reconnecting to ``Location`` sends none, and must not get the ``values`` the run logs besides),
    and its subgraphs' parts only when the run asked for them."""
    cursor = max(0, int(joining.last_event_id)) if joining.last_event_id else 0
    modes = [mode for mode in joining.stream_mode or () if mode] or (record.graph.stream_modes if record.graph else [])
    subgraphs = record.graph.subgraphs if record.graph else True
    encoder = AgentProtocolStream(thread_id=thread_id, modes=modes, subgraphs=subgraphs)
    slot = await open_slot(services.quota, services.principal)
    run_id = record.run_id
    headers = _locations(run_id, thread_id, stateless=stateless)
    return run_stream(services.streams, run_id, cursor, slot, encoder=encoder, headers=headers)


def _result(runs: RunRegistry, streams: RunStreams, run_id: str, after: int, thread_id: str) -> Stream:
    """The run's result once it settles, with 200 whatever the route's own status (a cancel's is 202). Its body is
    sent as an event stream's is (``EventStream``): it ends when the client leaves or the token it was asked with
    stops standing, so a wait is no way around a revocation."""
    return EventStream(
        result_body(runs, streams, run_id, after),
        status_code=200,
        media_type=_JSON,
        headers={
            "Location": f"/threads/{thread_id}/runs/{run_id}/join",
            "Content-Location": f"/threads/{thread_id}/runs/{run_id}",
        },
    )


def _locations(run_id: str, thread_id: str, *, stateless: bool) -> dict[str, str]:
    """Where the SDKs reconnect (``Location``) and what they read the run's id from (``Content-Location``)."""
    if stateless:
        return {"Location": f"/runs/{run_id}/stream", "Content-Location": f"/runs/{run_id}"}
    return {
        "Location": f"/threads/{thread_id}/runs/{run_id}/stream",
        "Content-Location": f"/threads/{thread_id}/runs/{run_id}",
    }
