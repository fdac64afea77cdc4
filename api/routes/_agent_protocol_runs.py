"""What the Agent Protocol's run routes share, on a thread (``api.routes.thread_runs``) and stateless
(``api.routes.stateless_runs``): the kind of route that starts a run and the kind that joins a run's stream,
starting a run streamed or waited for, joining a stream, a run's result, and the headers the SDKs reconnect by."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Annotated

from litestar import get, post
from litestar.di import Provide
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import Stream

from api.agent_protocol.requests import RequestedRun, read_run_request
from api.agent_protocol.results import result_body
from api.agent_protocol.stream import AgentProtocolStream
from api.graph_runs import answer_on_thread, run_on_thread
from api.openapi import problem_responses
from api.openapi.agent_protocol_stream import AgentProtocolStreamOperation
from api.routes._services import RUN_SERVICES, RunServices
from api.run_streams import held_slot, open_slot, run_stream
from api.runs.errors import RunNotPaused
from api.runs.log.records import RunRecord
from api.runs.registry import RunRegistry
from api.runs.stream.follow import RunStreams
from api.streaming_response import EventStream
from contracts.agent_protocol import RunCreate

__all__ = (
    "TAG",
    "CancelOnDisconnect",
    "Joining",
    "join_stream",
    "joins_stream",
    "run_result",
    "start_run",
    "start_streamed",
    "start_waited",
    "starts_run",
)

TAG = "agent-protocol"
_JSON = "application/json"
_STARTS = problem_responses(401, 403, 404, 409, 413, 415, 422, 429, 503)
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
class Joining:
    """What a join of a run's stream asks for: where to resume, and in which modes."""

    last_event_id: str | None
    stream_mode: list[str] | None


def _joining(
    last_event_id: LastEventId = None,
    stream_mode: StreamModes = None,
    cancel_on_disconnect: CancelOnDisconnect = False,
) -> Joining:
    del cancel_on_disconnect
    return Joining(last_event_id, stream_mode)


starts_run = partial(post, tags=[TAG], status_code=200, responses=_STARTS, dependencies=RUN_SERVICES)
"""A route that starts a run (on the thread in its path, or on a thread of its own)."""
joins_stream = partial(
    get,
    operation_class=AgentProtocolStreamOperation,
    tags=[TAG],
    responses=problem_responses(401, 404, 422, 429),
    dependencies={**RUN_SERVICES, "joining": Provide(_joining, sync_to_thread=False)},
)
"""A route that joins a run's stream (found by its thread and id, or by its id alone)."""


async def start_streamed(services: RunServices, thread_id: str | None, data: RunCreate) -> Stream:
    requested = read_run_request(data, services.graphs, detached=data.on_disconnect == "continue")
    async with held_slot(services.quota, services.principal) as slot:
        run_id, session_id, after = await start_run(services, thread_id, requested, data)
    encoder = AgentProtocolStream(thread_id=session_id, modes=requested.modes, subgraphs=data.stream_subgraphs)
    headers = _locations(run_id, session_id, stateless=thread_id is None)
    return run_stream(services.streams, run_id, after, slot, encoder=encoder, headers=headers)


async def start_waited(services: RunServices, thread_id: str | None, data: RunCreate) -> Stream:
    requested = read_run_request(data, services.graphs, detached=data.on_disconnect == "continue")
    run_id, session_id, after = await start_run(services, thread_id, requested, data)
    return run_result(services.runs, services.streams, run_id, after, session_id)


async def start_run(
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


async def join_stream(
    services: RunServices,
    record: RunRecord,
    thread_id: str,
    joining: Joining,
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


def run_result(runs: RunRegistry, streams: RunStreams, run_id: str, after: int, thread_id: str) -> Stream:
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
