"""``/runs/{run_id}``: a run's snapshot, its event stream (replay and live tail), and cancelling it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, PathParameter, QueryParameter

from api.auth import Principal
from api.exceptions import InvalidCursor
from api.openapi import (
    ENDED_STREAM_RESPONSE,
    LAST_EVENT_ID_PATTERN,
    RUN_ID_PATTERN,
    SESSION_ID_PATTERN,
    EventStreamOperation,
    RunOperation,
    problem_responses,
)
from api.run_streams import open_slot, run_stream
from api.runs.log.records import FINISHED
from contracts import RunSnapshot, SessionId

if TYPE_CHECKING:
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.registry import RunRegistry
    from api.runs.stream.follow import RunStreams

__all__ = ("cancel_run", "get_run", "run_events")

_NO_RUN_GETS_THIS_FAR = 10**12
"""Cursors beyond every seq mean the same; larger ones are held here, below what any store can compare."""

RunIdPath = Annotated[
    str, PathParameter(pattern=RUN_ID_PATTERN, description="The run (`run_id` of the turn's response).")
]
SessionQuery = Annotated[
    SessionId | None,
    QueryParameter(
        name="session_id",
        pattern=SESSION_ID_PATTERN,
        description="When given, the run must belong to this session (else 404).",
    ),
]


@get(
    "/runs/{run_id:str}",
    operation_id="getRun",
    tags=["runs"],
    summary="Where a run stands",
    operation_class=RunOperation,
    responses=problem_responses(401, 404, 422),
)
async def get_run(
    run_id: RunIdPath,
    runs: NamedDependency[RunRegistry],
    principal: NamedDependency[Principal],
    session_id: SessionQuery = None,
) -> RunSnapshot:
    found = await runs.get(run_id, principal, session_id=session_id)
    return found.current_snapshot()


@get(
    "/runs/{run_id:str}/events",
    operation_id="streamRunEvents",
    tags=["runs"],
    summary="A run's events: replay after the cursor, then the live tail",
    operation_class=EventStreamOperation,
    responses={204: ENDED_STREAM_RESPONSE, **problem_responses(401, 404, 422, 429)},
)
async def run_events(
    run_id: RunIdPath,
    runs: NamedDependency[RunRegistry],
    streams: NamedDependency[RunStreams],
    quota: NamedDependency[StreamQuota],
    principal: NamedDependency[Principal],
    *,
    session_id: SessionQuery = None,
    after: Annotated[
        int, QueryParameter(name="after", ge=0, description="Send events with a greater seq; Last-Event-ID wins.")
    ] = 0,
    last_event_id: Annotated[
        str | None,
        HeaderParameter(
            name="Last-Event-ID",
            pattern=LAST_EVENT_ID_PATTERN,
            description=(
                "`<run_id>:<seq>` of the last event received from this run (what `EventSource` sends when it "
                "reconnects). Another run's id is a 422."
            ),
        ),
    ] = None,
) -> Response[Any]:
    found = await runs.get(run_id, principal, session_id=session_id)
    cursor = _cursor(run_id, after, last_event_id)
    snapshot = found.current_snapshot()
    if snapshot.status in FINISHED and cursor >= snapshot.last_seq:
        # nothing can follow the terminal event: 204 is what makes a browser's EventSource stop reconnecting
        return Response(None, status_code=204)
    return run_stream(streams, run_id, cursor, await open_slot(quota, principal))


@post(
    "/runs/{run_id:str}/cancel",
    operation_id="cancelRun",
    tags=["runs"],
    status_code=202,
    summary="Cancel a run",
    operation_class=RunOperation,
    responses=problem_responses(401, 403, 404, 409, 422),
)
async def cancel_run(
    run_id: RunIdPath,
    runs: NamedDependency[RunRegistry],
    principal: NamedDependency[Principal],
    session_id: SessionQuery = None,
) -> Response[RunSnapshot]:
    found = await runs.get(run_id, principal, session_id=session_id)
    return Response(await runs.cancel(found, principal), status_code=202)


def _cursor(run_id: str, after: int, last_event_id: str | None) -> int:
    if last_event_id is None:
        return min(after, _NO_RUN_GETS_THIS_FAR)
    event_run, _, seq = last_event_id.rpartition(":")
    if event_run != run_id:
        raise InvalidCursor(f"Last-Event-ID {last_event_id!r} names another run; this is run {run_id}.")
    return int(seq)
