"""The LangGraph Agent Server API (the Agent Protocol), served at the root so that langgraph-sdk works unchanged:
assistants, threads, runs (on a thread and stateless), the long-term store and crons. The routes of one thread
are grouped under the thread's path, ``/threads/{thread_id}``, written here once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.routes._router import grouped
from api.routes.allow import with_options
from api.routes.assistants import get_assistant, get_assistant_graph, get_assistant_schemas, search_assistants
from api.routes.crons import count_crons, create_cron, create_thread_cron, delete_cron, search_crons, update_cron
from api.routes.stateless_runs import join_stateless_run_stream, stream_stateless_run, wait_stateless_run
from api.routes.store import (
    delete_store_item,
    get_store_item,
    list_store_namespaces,
    put_store_item,
    search_store_items,
)
from api.routes.thread_runs import (
    cancel_thread_run,
    create_thread_run,
    delete_thread_run,
    get_thread_run,
    join_run,
    join_run_stream,
    list_thread_runs,
    stream_thread_run,
    wait_thread_run,
)
from api.routes.threads import (
    copy_thread_route,
    create_thread,
    delete_thread,
    get_thread,
    get_thread_history,
    get_thread_state,
    search_threads,
    update_thread_state_route,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litestar import Router

__all__ = ("AGENT_PROTOCOL_ROUTES", "THREAD_PATH", "agent_protocol_router")

THREAD_PATH = "/threads/{thread_id:str}"
"""The path of one thread; the paths of the routes of ``_ON_A_THREAD`` are relative to it."""

_ASSISTANTS_AND_THREADS = (
    search_assistants,
    get_assistant,
    get_assistant_graph,
    get_assistant_schemas,
    create_thread,
    search_threads,
)
_ON_A_THREAD = (
    get_thread,
    delete_thread,
    copy_thread_route,
    get_thread_state,
    update_thread_state_route,
    get_thread_history,
    create_thread_run,
    stream_thread_run,
    wait_thread_run,
    list_thread_runs,
    get_thread_run,
    join_run,
    join_run_stream,
    cancel_thread_run,
    delete_thread_run,
    create_thread_cron,
)
_STATELESS_RUNS_STORE_AND_CRONS = (
    stream_stateless_run,
    wait_stateless_run,
    join_stateless_run_stream,
    put_store_item,
    get_store_item,
    delete_store_item,
    search_store_items,
    list_store_namespaces,
    create_cron,
    search_crons,
    count_crons,
    update_cron,
    delete_cron,
)
AGENT_PROTOCOL_ROUTES = (*_ASSISTANTS_AND_THREADS, *_ON_A_THREAD, *_STATELESS_RUNS_STORE_AND_CRONS)
"""Every route of the Agent Server API."""


def agent_protocol_router(*, body_checks: Sequence[Any]) -> Router:
    """The Agent Server API's routes; each path that several of them serve answers ``OPTIONS`` with all their
    methods (``api.routes.allow``)."""
    on_a_thread = grouped(THREAD_PATH, with_options(_ON_A_THREAD), body_checks=body_checks)
    return grouped(
        "/",
        [*with_options(_ASSISTANTS_AND_THREADS), on_a_thread, *with_options(_STATELESS_RUNS_STORE_AND_CRONS)],
        body_checks=body_checks,
    )
