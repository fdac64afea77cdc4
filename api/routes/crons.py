"""The Agent Server's crons, as langgraph-sdk's ``client.crons.*`` sends them: make one on a thread or for a new
thread each firing, search and count the caller's, change one (``PATCH``), delete one.

A cron belongs to the subject that made it: another subject's is ``404`` and absent from a search. Its run is
checked as a run's body is when the cron is made (an unknown assistant, a refused option: ``422``), its schedule
and time zone read then (``422 cron_request_invalid``). The scheduler (``api.crons.scheduler``) starts its runs.

A thread's cron is made at ``/runs/crons`` relative to the thread's path, ``/threads/{thread_id}``
(``api.routes.agent_protocol`` groups it with the thread's other routes); the other routes are at the root.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from litestar import Request, delete, patch, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from api.auth import Principal
from api.auth.custom_user import AuthUser
from api.auth.route_actions import thread_create_value
from api.crons import CronBook, cron_view
from api.openapi import problem_responses
from api.runs.threads import ThreadBook
from contracts.crons import Cron, CronCount, CronCreate, CronSearch, CronUpdate

__all__ = ("count_crons", "create_cron", "create_thread_cron", "delete_cron", "search_crons", "update_cron")

TAG = "agent-protocol"
_makes = partial(post, tags=[TAG], status_code=200)
"""A POST of the crons' routes: it answers 200 (what it made or found), not Litestar's 201."""


@_makes(
    "/runs/crons",
    operation_id="createCron",
    summary="Make a cron whose every firing runs on a new thread",
    responses=problem_responses(401, 413, 415, 422),
)
async def create_cron(
    data: JSONBody[CronCreate],
    request: Request[Any, Any, Any],
    *,
    crons: NamedDependency[CronBook],
    threads: NamedDependency[ThreadBook],
    principal: NamedDependency[Principal],
) -> Cron:
    return cron_view(await crons.create(data, principal, None, await _threads_made(request, threads)))


@_makes(
    "/runs/crons",
    operation_id="createThreadCron",
    summary="Make a cron that runs on the thread at each firing",
    responses=problem_responses(401, 404, 413, 415, 422),
)
async def create_thread_cron(
    thread_id: FromPath[str],
    data: JSONBody[CronCreate],
    request: Request[Any, Any, Any],
    *,
    crons: NamedDependency[CronBook],
    threads: NamedDependency[ThreadBook],
    principal: NamedDependency[Principal],
) -> Cron:
    return cron_view(await crons.create(data, principal, thread_id, await _threads_read(request, threads, thread_id)))


@_makes(
    "/runs/crons/search",
    operation_id="searchCrons",
    summary="The caller's crons, filtered and sorted",
    responses=problem_responses(401, 413, 415, 422),
)
async def search_crons(
    data: JSONBody[CronSearch], *, crons: NamedDependency[CronBook], principal: NamedDependency[Principal]
) -> list[Cron]:
    return [cron_view(record) for record in await crons.search(data, principal)]


@_makes(
    "/runs/crons/count",
    operation_id="countCrons",
    summary="How many of the caller's crons match",
    responses=problem_responses(401, 413, 415, 422),
)
async def count_crons(
    data: JSONBody[CronCount], *, crons: NamedDependency[CronBook], principal: NamedDependency[Principal]
) -> int:
    return await crons.count(data, principal)


@patch(
    "/runs/crons/{cron_id:str}",
    operation_id="updateCron",
    tags=[TAG],
    status_code=200,
    summary="Change one of the caller's crons (the fields given; `end_time: null` clears its end)",
    responses=problem_responses(401, 404, 413, 415, 422),
)
async def update_cron(
    cron_id: FromPath[str],
    data: JSONBody[CronUpdate],
    *,
    crons: NamedDependency[CronBook],
    principal: NamedDependency[Principal],
) -> Cron:
    return cron_view(await crons.update(cron_id, data, principal))


@delete(
    "/runs/crons/{cron_id:str}",
    operation_id="deleteCron",
    tags=[TAG],
    status_code=204,
    summary="Delete one of the caller's crons (its runs stay)",
    responses=problem_responses(401, 404),
)
async def delete_cron(
    cron_id: FromPath[str], *, crons: NamedDependency[CronBook], principal: NamedDependency[Principal]
) -> None:
    await crons.delete(cron_id, principal)


async def _threads_read(request: Request[Any, Any, Any], threads: ThreadBook, thread_id: str) -> ThreadBook:
    """``threads`` as the request's ``@auth.on.threads`` handler lets it read ``thread_id`` (the route's own handler
    is the crons'): a thread its filter hides is a 404 here as on the thread's routes, not a thread to run on."""
    custom = request.app.state.get("custom_auth")
    user = request.scope.get("auth")
    if custom is None or not isinstance(user, AuthUser):
        return threads
    where = await custom.authorize(user, "threads", "read", {"thread_id": thread_id, "run_id": None})
    return threads if where is None else threads.narrowed(where)


async def _threads_made(request: Request[Any, Any, Any], threads: ThreadBook) -> ThreadBook:
    """``threads`` as the request's ``@auth.on.threads`` handler has a thread made (the route's own handler is the
    crons'): the metadata it stamps on a new thread, which each firing's thread of the cron gets (no request reaches
    a handler when the cron fires). Refused by the handler: 403, no cron made."""
    custom = request.app.state.get("custom_auth")
    user = request.scope.get("auth")
    if custom is None or not isinstance(user, AuthUser):
        return threads
    value = thread_create_value({}, {}, {})
    where = await custom.authorize(user, "threads", "create", value)
    stamped = value.get("metadata")
    return threads.narrowed(where, stamped if isinstance(stamped, dict) and stamped else None)
