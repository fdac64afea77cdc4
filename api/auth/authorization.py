"""The ``@auth.on`` handlers of langgraph.json's ``auth.path``, called before the operation each route does.

One guard (``authorize_route``, on every route when ``auth.path`` is given) names the route's resource and action
as the Agent Server does (``ROUTE_ACTIONS``: ``POST /threads`` is ``threads.create``, a run started by any protocol
``threads.create_run``, ``PUT /store/items`` ``store.put``, ...), builds the value the Agent Server passes for it
from the path, the query and the JSON body, and calls the handler (``CustomAuth.authorize``). False is a 403.
What it returns and the value as it left it (``Decision``) are kept for the route:

- threads: the request's ``ThreadBook`` is narrowed to the threads whose metadata match the filter (any other is
  a 404 and absent from searches, whichever protocol asks), and a thread the request creates gets the metadata
  the handler wrote; a route naming an existing thread the filter excludes is a 404 at once, wherever it names it:
  in its path (its state, history, runs, delete, copy), by a run alone (``/runs/{run_id}`` and its events, stream,
  case, feedback, cancel: the run's session), as an AI SDK chat id (the reconnect). A2A's and MCP's calls answer
  JSON-RPC, so their handlers refuse such a thread on the narrowed book;
- assistants: an assistant whose metadata the filter excludes is a 404 and absent from searches;
- store: the namespace the handler wrote is the one used; the filter holds on the items' values
  (``api.routes.store``);
- crons: as threads, on the request's ``CronBook`` (a cron the filter excludes is a 404, absent from searches and
  counts; metadata the handler wrote is kept on a cron it creates).

Ownership by subject holds beneath all of it: a filter narrows what a subject sees, never widens it. ``GET
/approvals`` is a search of interrupted threads (``threads.search``): an approval whose thread the filter excludes is
not listed. The service's other routes that name no thread (sessions, knowledge) call no handler: their objects are
the subject's by ownership alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from api.auth.custom import json_body
from api.auth.custom_user import AuthUser
from api.auth.route_actions import ROUTE_ACTIONS, json_object
from api.runs.errors import RunNotFound, SessionNotFound
from api.runs.metadata_filter import MetadataFilter

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from litestar.connection import ASGIConnection
    from litestar.handlers.base import BaseRouteHandler
    from litestar.types import Scope

    from api.auth.custom import CustomAuth
    from api.runs.threads import ThreadBook

__all__ = (
    "Decision",
    "authorize_route",
    "decision_of",
    "narrowed_threads",
    "narrowing",
)

_DECISION = "harness.auth_decision"
"""Where a request's ``Decision`` is kept in its scope."""


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """What a request's ``@auth.on`` handler decided."""

    resource: str
    action: str
    value: dict[str, Any]
    """The value the handler was given, as it left it (``metadata`` it stamped, a ``namespace`` it rewrote)."""
    where: MetadataFilter | None = None
    """The filter it returned; None: it allowed without one."""


_RPC_ACTIONS = {
    "SendMessage": "create_run",
    "SendStreamingMessage": "create_run",
    "tools/call": "create_run",
    "GetTask": "read",
    "SubscribeToTask": "read",
    "CancelTask": "update",
    "notifications/cancelled": "update",
}
"""A2A's and MCP's JSON-RPC methods that touch a thread (the others, an agent card, ``tools/list``, none); an MCP
response (an elicitation's answer) is a ``create_run``, as a run resumed on the Agent Server."""
_RPC_ROUTES = frozenset({"a2aJsonRpc", "mcpMessage"})
_NAMES_A_THREAD = frozenset({"read", "update", "delete"})
"""The thread actions on a thread that exists, looked up by the guard: the thread named in the path, by the run the
path names (its session), or by an AI SDK chat id. A thread a run may create (``create_run``) is not: the route's
narrowed ``ThreadBook`` refuses one that exists and is excluded. A2A's and MCP's calls are left to their handlers
(on the same narrowed book), which answer a JSON-RPC error rather than a 404."""


async def authorize_route(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """The guard: the route's ``@auth.on`` handler, called with its value; its ``Decision`` kept for the route."""
    user = connection.scope.get("auth")
    custom: CustomAuth | None = connection.app.state.get("custom_auth")
    operation = getattr(handler, "operation_id", None)
    if not isinstance(user, AuthUser) or custom is None or not isinstance(operation, str):
        return
    found = await _route_action(connection, operation)
    if found is None:
        return
    resource, action, value_of = found
    if not custom.has_handler(resource, action):
        return
    path = dict(connection.path_params)
    by_run = resource == "threads" and "run_id" in path and "thread_id" not in path
    if by_run:
        path["thread_id"] = await _thread_of_run(connection, path["run_id"])
    body = await json_body(connection)
    value = value_of(path, dict(connection.query_params.items()), body)
    where = await custom.authorize(user, resource, action, value)
    decision = Decision(resource=resource, action=action, value=value, where=where)
    connection.scope[_DECISION] = decision  # type: ignore[literal-required]
    if resource == "threads" and where and action in _NAMES_A_THREAD and operation not in _RPC_ROUTES:
        refusal = RunNotFound(f"There is no run {path['run_id']}.") if by_run else None
        await _check_shown(connection, value.get("thread_id"), where, refusal)


async def _thread_of_run(connection: ASGIConnection[Any, Any, Any, Any], run_id: str) -> str | None:
    """The thread (session) of the run a route names alone (``/runs/{run_id}...``), whoever it belongs to; None
    for an unknown run (the route answers its 404)."""
    found = await connection.app.state.runs.find(run_id)
    return None if found is None else str(found.record.snapshot.session_id)


async def _check_shown(
    connection: ASGIConnection[Any, Any, Any, Any],
    thread_id: Any,
    where: MetadataFilter,
    refusal: RunNotFound | None,
) -> None:
    """A 404 for a thread the filter excludes, before the route checks ownership (or an approver's right) after:
    one named in the path, whether or not it has a record (as ``ThreadBook.get``); one named otherwise (by its run,
    an AI SDK chat id) when its record is excluded (a ``/chat`` session has none: ownership alone, as ever).
    ``refusal``: the 404 of a route naming the run alone, which must not tell whose thread the run is of."""
    if not isinstance(thread_id, str) or not thread_id:
        return
    threads: ThreadBook = connection.app.state.runs.threads
    named = connection.path_params.get("thread_id") == thread_id
    if await (threads.filtered_out(thread_id, where) if named else threads.narrowed(where).hides(thread_id)):
        raise refusal or SessionNotFound(f"There is no thread {thread_id}.")


def decision_of(scope: Scope) -> Decision | None:
    """The request's ``Decision``; None when no handler was called (no ``auth.path``, or none for this route)."""
    found = scope.get(_DECISION)
    return found if isinstance(found, Decision) else None


def narrowing(scope: Scope, resource: str) -> tuple[MetadataFilter | None, dict[str, Any] | None] | None:
    """What the request's handler for ``resource`` (``threads``, ``crons``) decided: its filter, and the metadata
    an object the request creates gets; None when no handler of that resource was called."""
    decision = decision_of(scope)
    if decision is None or decision.resource != resource:
        return None
    stamped = decision.value.get("metadata") if decision.action in ("create", "create_run") else None
    return decision.where, stamped if isinstance(stamped, dict) else None


def narrowed_threads(scope: Scope, threads: ThreadBook) -> ThreadBook:
    """The threads the request may see and what a thread it creates carries (``ThreadBook.narrowed``)."""
    found = narrowing(scope, "threads")
    return threads if found is None else threads.narrowed(*found)


async def _route_action(
    connection: ASGIConnection[Any, Any, Any, Any], operation: str
) -> tuple[str, str, Callable[[Mapping[str, Any], Mapping[str, str], Any], dict[str, Any]]] | None:
    if operation not in _RPC_ROUTES:
        return ROUTE_ACTIONS.get(operation)
    call = json_object(await json_body(connection))
    method = call.get("method")
    if isinstance(method, str):
        action = _RPC_ACTIONS.get(method)
    else:  # a response: on MCP, the client's answer to an elicitation, which resumes (or cancels) the run it asked
        action = "create_run" if operation == "mcpMessage" and "id" in call else None
    if action is None:
        return None
    params = json_object(call.get("params"))
    message = json_object(params.get("message"))
    thread_id = message.get("contextId") or params.get("contextId")

    def value(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
        del query, body
        return {"thread_id": thread_id, "assistant_id": path.get("assistant_id"), "metadata": {}}

    return "threads", action, value
