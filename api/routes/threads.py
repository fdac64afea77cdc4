"""The Agent Protocol's threads: create, read, search, copy, delete; a thread's state, its history, and updates.

A thread is a session: it belongs to the subject who created it (404 for anyone else), its checkpoints are
the LangGraph thread of that id, and deleting it erases the session everywhere (``DELETE /sessions/{id}``).

The routes of one thread have paths relative to the thread's, ``/threads/{thread_id}`` (``api.routes.agent_protocol``
groups them under it); creating and searching threads are at the root.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Annotated, Any

from litestar import delete, get, post
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody, QueryParameter

from agent.graphs import SUPPORT_GRAPH_ID
from api.agent_protocol.state import thread_graph, thread_history, thread_state, update_thread_state
from api.agent_protocol.views import thread_metadata, thread_view
from api.auth import Principal
from api.exceptions import ThreadExists
from api.openapi import problem_responses
from api.routes._services import RUN_SERVICES, RunServices
from api.runs.erasure import SessionErasure
from api.runs.errors import RunRequestInvalid, SessionBusy
from api.runs.log.threads import ThreadRecord
from api.runs.thread_copy import copy_thread
from contracts.agent_protocol import (
    ThreadCreate,
    ThreadHistoryRequest,
    ThreadInterrupt,
    ThreadSearch,
    ThreadState,
    ThreadStateUpdate,
    ThreadStateUpdated,
    ThreadStatus,
    ThreadSummary,
)

__all__ = (
    "copy_thread_route",
    "create_thread",
    "delete_thread",
    "get_thread",
    "get_thread_history",
    "get_thread_state",
    "search_threads",
    "update_thread_state_route",
)

TAG = "agent-protocol"


def _thread_route(route: type[HTTPRouteHandler], path: str, **kwargs: Any) -> HTTPRouteHandler:
    """A route of the Agent Protocol's threads, given ``services``."""
    return route(path, tags=[TAG], dependencies=RUN_SERVICES, **kwargs)


@_thread_route(
    post,
    "/threads",
    operation_id="createThread",
    status_code=200,
    summary="Create a thread (a session): with an id of the client's, or one the service makes",
    responses=problem_responses(401, 404, 409, 413, 415, 422),
)
async def create_thread(
    data: JSONBody[ThreadCreate],
    *,
    services: NamedDependency[RunServices],
) -> ThreadSummary:
    thread, created = await services.threads.create(data.thread_id, dict(data.metadata or {}), services.principal)
    if not created and data.if_exists == "raise":
        raise ThreadExists(f"Thread {thread.thread_id} exists; ask with if_exists `do_nothing` to get it.")
    return await summary(services, thread)


@_thread_route(
    get,
    "/",
    operation_id="getThread",
    summary="A thread: its status, metadata and current values",
    responses=problem_responses(401, 404),
)
async def get_thread(
    thread_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
) -> ThreadSummary:
    return await summary(services, await services.threads.get(thread_id, services.principal))


@_thread_route(
    delete,
    "/",
    operation_id="deleteThread",
    status_code=204,
    summary="Delete a thread: its runs end, then everything kept of it is erased",
    responses=problem_responses(401, 404, 409, 422),
)
async def delete_thread(
    thread_id: FromPath[str], erasure: NamedDependency[SessionErasure], principal: NamedDependency[Principal]
) -> None:
    await erasure.erase_session(thread_id, principal)


@_thread_route(
    post,
    "/copy",
    operation_id="copyThread",
    status_code=200,
    summary="Copy a thread: a new thread of the caller's with its graph, metadata and checkpoints (not its runs)",
    responses=problem_responses(401, 404, 409, 422),
)
async def copy_thread_route(
    thread_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
    erasure: NamedDependency[SessionErasure],
) -> ThreadSummary:
    copied = await copy_thread(
        services.threads, services.runs.agent.stores.checkpointer, erasure, thread_id, services.principal
    )
    return await summary(services, copied)


@_thread_route(
    post,
    "/threads/search",
    operation_id="searchThreads",
    status_code=200,
    summary="The caller's threads, filtered by metadata, id and status",
    responses=problem_responses(401, 413, 415, 422),
)
async def search_threads(
    data: JSONBody[ThreadSearch],
    *,
    services: NamedDependency[RunServices],
) -> list[ThreadSummary]:
    found = [
        thread
        for thread in await services.threads.search(services.principal)
        if (data.ids is None or thread.thread_id in data.ids)
        and _contains(thread_metadata(thread), data.metadata or {})
    ]
    statuses: dict[str, ThreadStatus] = {}
    if data.status is not None or data.sort_by == "status":
        statuses = {thread.thread_id: await _status(services, thread.thread_id) for thread in found}
        found = [thread for thread in found if data.status in (None, statuses[thread.thread_id])]
    newest_first = data.sort_order != "asc"
    if data.sort_by == "status":
        found.sort(key=lambda thread: statuses[thread.thread_id], reverse=newest_first)
    else:
        found.sort(key=attrgetter(data.sort_by or "updated_at"), reverse=newest_first)
    return [await summary(services, thread) for thread in found[data.offset : data.offset + data.limit]]


@_thread_route(
    get,
    "/state",
    operation_id="getThreadState",
    summary="The thread's current state (its latest checkpoint)",
    responses=problem_responses(401, 404, 422),
)
async def get_thread_state(
    thread_id: FromPath[str],
    *,
    services: NamedDependency[RunServices],
    subgraphs: Annotated[bool, QueryParameter(description="Accepted; subgraph states are not nested.")] = False,
) -> ThreadState:
    del subgraphs
    return await thread_state(services.graphs, await services.threads.get(thread_id, services.principal))


@_thread_route(
    post,
    "/state",
    operation_id="updateThreadState",
    status_code=200,
    summary="Write the thread's state as a node would (not while a run runs or waits)",
    responses=problem_responses(401, 404, 409, 413, 415, 422),
)
async def update_thread_state_route(
    thread_id: FromPath[str],
    data: JSONBody[ThreadStateUpdate],
    *,
    services: NamedDependency[RunServices],
) -> ThreadStateUpdated:
    thread = await services.threads.get(thread_id, services.principal)
    if thread_graph(services.graphs, thread).graph_id == SUPPORT_GRAPH_ID:
        raise RunRequestInvalid("The support agent's state is written by its turns only (its guardrails see all).")
    if (active := await services.threads.active_run(thread_id)) is not None:
        raise SessionBusy(f"Thread {thread_id} has run {active} unfinished.", run_id=active)
    checkpoint = await update_thread_state(services.graphs, thread, data.values, data.as_node)
    await services.threads.used(thread, thread_graph(services.graphs, thread).graph_id)
    return ThreadStateUpdated(checkpoint=checkpoint)


@_thread_route(
    post,
    "/history",
    operation_id="getThreadHistory",
    status_code=200,
    summary="The thread's past states, newest first",
    responses=problem_responses(401, 404, 413, 415, 422),
)
async def get_thread_history(
    thread_id: FromPath[str],
    data: JSONBody[ThreadHistoryRequest],
    *,
    services: NamedDependency[RunServices],
) -> list[ThreadState]:
    thread = await services.threads.get(thread_id, services.principal)
    return await thread_history(services.graphs, thread, limit=data.limit, before=data.before)


async def summary(services: RunServices, thread: ThreadRecord) -> ThreadSummary:
    """The thread as the Agent Server shows it: status from its runs, values and interrupts from its state."""
    state = await thread_state(services.graphs, thread)
    return thread_view(
        thread,
        status=await _status(services, thread.thread_id),
        values=state.values if state.checkpoint is not None else None,
        interrupts=[ThreadInterrupt(value=interrupt.value, id=interrupt.id) for interrupt in state.interrupts],
    )


async def _status(services: RunServices, thread_id: str) -> ThreadStatus:
    """``busy`` while a run runs, ``interrupted`` while one waits at an interrupt, ``error`` when the newest run
    failed (a cancelled one leaves the thread ``idle``), else ``idle``."""
    threads = services.threads
    active = await threads.active_run(thread_id)
    found = None if active is None else await services.runs.find(active)
    if found is not None:
        return "interrupted" if found.current_snapshot().status == "waiting" else "busy"
    last = await threads.last_run(thread_id)
    return "error" if last is not None and last.snapshot.status == "failed" else "idle"


def _contains(metadata: dict[str, Any], wanted: dict[str, Any]) -> bool:
    return all(metadata.get(key) == value for key, value in wanted.items())
