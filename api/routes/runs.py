"""``/runs/{run_id}``: a run's snapshot, its event stream (replay and live tail), and cancelling it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream

from api.exceptions import InvalidCursor
from api.routes.turns import sse_response
from api.runs.run import Run
from contracts import RunSnapshot, SessionId

if TYPE_CHECKING:
    from api.runs.registry import RunRegistry

__all__ = ("cancel_run", "get_run", "run_events")

_LAST_EVENT_ID = re.compile(r"^(?P<run_id>[A-Za-z0-9_-]+):(?P<seq>\d{1,12})$")

SessionQuery = Annotated[
    SessionId | None,
    QueryParameter(name="session_id", description="When given, the run must belong to this session (else 404)."),
]


@get("/runs/{run_id:str}", summary="Where a run stands")
async def get_run(
    run_id: FromPath[str], runs: NamedDependency[RunRegistry], session_id: SessionQuery = None
) -> RunSnapshot:
    found = await runs.get(run_id, session_id)
    return found.snapshot() if isinstance(found, Run) else found.snapshot


@get("/runs/{run_id:str}/events", summary="A run's events: replay after the cursor, then the live tail")
async def run_events(
    run_id: FromPath[str],
    runs: NamedDependency[RunRegistry],
    session_id: SessionQuery = None,
    after: Annotated[
        int | None,
        QueryParameter(
            name="after", ge=0, description="Send events with a greater seq (the Last-Event-ID header wins)."
        ),
    ] = None,
    last_event_id: Annotated[
        str | None,
        HeaderParameter(name="Last-Event-ID", description="`<run_id>:<seq>` of the last event received."),
    ] = None,
) -> Stream:
    found = await runs.get(run_id, session_id)
    last_seq = found.last_seq if isinstance(found, Run) else found.snapshot.last_seq
    cursor = _cursor(run_id, after, last_event_id)
    if cursor > last_seq:
        raise InvalidCursor(f"The run's newest event is {last_seq}; there is no event {cursor}.")
    return sse_response(runs, run_id, cursor)


@post("/runs/{run_id:str}/cancel", status_code=202, summary="Cancel a run")
async def cancel_run(
    run_id: FromPath[str], runs: NamedDependency[RunRegistry], session_id: SessionQuery = None
) -> Response[RunSnapshot]:
    run = runs.cancel(await runs.get(run_id, session_id))
    return Response(run.snapshot(), status_code=202)


def _cursor(run_id: str, after: int | None, last_event_id: str | None) -> int:
    if last_event_id is None:
        return after or 0
    match = _LAST_EVENT_ID.match(last_event_id.strip())
    if match is None or match["run_id"] != run_id:
        raise InvalidCursor(f"Last-Event-ID must be `{run_id}:<seq>`, got {last_event_id[:80]!r}.")
    return int(match["seq"])
