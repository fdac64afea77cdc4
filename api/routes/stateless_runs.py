"""The Agent Protocol's stateless runs: each on a thread of its own, streamed or waited for, and joined by the run's
id alone. The runs of a thread are ``api.routes.thread_runs``."""

from __future__ import annotations

from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody
from litestar.response import Stream

from api.openapi.agent_protocol_stream import AgentProtocolStreamOperation
from api.routes._agent_protocol_runs import Joining, join_stream, joins_stream, start_streamed, start_waited, starts_run
from api.routes._services import RunServices
from contracts.agent_protocol import RunCreate

__all__ = ("join_stateless_run_stream", "stream_stateless_run", "wait_stateless_run")


@starts_run(
    "/runs/stream",
    operation_id="streamStatelessRun",
    operation_class=AgentProtocolStreamOperation,
    summary="Start a run on a thread of its own and stream it (SSE)",
)
async def stream_stateless_run(data: JSONBody[RunCreate], services: NamedDependency[RunServices]) -> Stream:
    return await start_streamed(services, None, data)


@starts_run(
    "/runs/wait",
    operation_id="waitStatelessRun",
    summary="Start a run on a thread of its own and answer its result once it stops",
)
async def wait_stateless_run(data: JSONBody[RunCreate], services: NamedDependency[RunServices]) -> Stream:
    return await start_waited(services, None, data)


@joins_stream(
    "/runs/{run_id:str}/stream",
    operation_id="joinStatelessRunStream",
    summary="Join a run's stream by its id alone: replay after Last-Event-ID, then the live tail",
)
async def join_stateless_run_stream(
    run_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
    joining: NamedDependency[Joining],
) -> Stream:
    found = await services.runs.get(run_id, services.principal)
    return await join_stream(services, found.record, found.record.snapshot.session_id, joining, stateless=True)
