"""What each route asks of langgraph.json's ``@auth.on`` handlers: its resource and action as the Agent Server
names them (``POST /threads`` is ``threads.create``, a run started by any protocol ``threads.create_run``, ``PUT
/store/items`` ``store.put``, ...), and the value the Agent Server passes for it, built from the path, the query and
the JSON body (a field the request does not give has the Agent Server's default)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ("ROUTE_ACTIONS", "json_object", "thread_create_value")


def json_object(body: Any) -> dict[str, Any]:
    """``body`` when it is a JSON object, else an empty one (a value is built from whatever a client sent)."""
    return body if isinstance(body, dict) else {}


def _thread(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del query, body
    return {"thread_id": path.get("thread_id"), "run_id": path.get("run_id")}


def thread_create_value(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path, query
    given = json_object(body)
    return {
        "thread_id": given.get("thread_id"),
        "metadata": dict(json_object(given.get("metadata"))),
        "if_exists": given.get("if_exists", "raise"),
        "ttl": given.get("ttl"),
    }


def _thread_update(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    return {"thread_id": path.get("thread_id"), "run_id": path.get("run_id"), "action": query.get("action")} | (
        {"values": json_object(body).get("values")} if body is not None else {}
    )


def _thread_search(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path, query
    given = json_object(body)
    return {
        "metadata": dict(json_object(given.get("metadata"))),
        "values": given.get("values"),
        "status": given.get("status"),
        "limit": given.get("limit", 10),
        "offset": given.get("offset", 0),
        "ids": given.get("ids"),
        "thread_id": None,
    }


_RUN_FIELDS = ("assistant_id", "metadata", "multitask_strategy", "if_not_exists", "after_seconds", "webhook")


def _run_create(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del query
    given = json_object(body)
    return {
        "thread_id": path.get("thread_id"),
        "assistant_id": given.get("assistant_id"),
        "run_id": None,
        "status": "pending",
        "metadata": dict(json_object(given.get("metadata"))),
        "prevent_insert_if_inflight": True,
        "multitask_strategy": given.get("multitask_strategy", "enqueue"),
        "if_not_exists": given.get("if_not_exists", "reject"),
        "after_seconds": given.get("after_seconds"),
        "kwargs": {key: item for key, item in given.items() if key not in _RUN_FIELDS},
    }


def _chat_run(thread_key: str) -> Callable[[Mapping[str, Any], Mapping[str, str], Any], dict[str, Any]]:
    """A run a chat protocol starts: its thread is the body's ``thread_key`` (AG-UI's ``threadId``, the AI SDK's
    ``id``, ``/chat``'s ``session_id``), its assistant the path's."""

    def value(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
        del query
        given = json_object(body)
        return {
            "thread_id": given.get(thread_key),
            "assistant_id": path.get("assistant_id"),
            "run_id": None,
            "status": "pending",
            "metadata": {},
            "multitask_strategy": "reject",
            "if_not_exists": "create",
            "kwargs": {},
        }

    return value


def _assistant(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del query, body
    return {"assistant_id": path.get("assistant_id")}


def _assistant_search(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path, query
    given = json_object(body)
    return {
        "graph_id": given.get("graph_id"),
        "metadata": dict(json_object(given.get("metadata"))),
        "limit": given.get("limit", 10),
        "offset": given.get("offset", 0),
    }


def _labels(given: Any) -> tuple[str, ...]:
    return tuple(str(label) for label in given) if isinstance(given, list) else ()


def _store_item(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path
    if body is None:  # GET /store/items: the namespace is the query's, its labels joined with "."
        labels = query.get("namespace", "")
        return {"namespace": tuple(labels.split(".")) if labels else (), "key": query.get("key")}
    given = json_object(body)
    return {"namespace": _labels(given.get("namespace")), "key": given.get("key")}


def _store_put(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    given = json_object(body)
    return _store_item(path, query, body) | {"value": given.get("value"), "index": given.get("index")}


def _store_search(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path, query
    given = json_object(body)
    return {
        "namespace": _labels(given.get("namespace_prefix")),
        "filter": given.get("filter"),
        "limit": given.get("limit", 10),
        "offset": given.get("offset", 0),
        "query": given.get("query"),
    }


def _store_namespaces(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path, query
    given = json_object(body)
    return {
        "namespace": _labels(given.get("prefix")) or None,
        "suffix": _labels(given.get("suffix")) or None,
        "max_depth": given.get("max_depth"),
        "limit": given.get("limit", 100),
        "offset": given.get("offset", 0),
    }


def _cron_create(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del query
    given = json_object(body)
    payload = {key: item for key, item in given.items() if key not in ("schedule", "end_time")}
    return {
        "payload": payload,
        "metadata": dict(json_object(given.get("metadata"))),
        "schedule": given.get("schedule"),
        "cron_id": None,
        "thread_id": path.get("thread_id"),
        "user_id": None,
        "end_time": given.get("end_time"),
    }


def _cron(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del query
    given = json_object(body)
    changed = {key: item for key, item in given.items() if key not in ("schedule",)}
    return {"cron_id": path.get("cron_id")} | ({"payload": changed, "schedule": given.get("schedule")} if given else {})


def _cron_search(path: Mapping[str, Any], query: Mapping[str, str], body: Any) -> dict[str, Any]:
    del path, query
    given = json_object(body)
    return {
        "assistant_id": given.get("assistant_id"),
        "thread_id": given.get("thread_id"),
        "limit": given.get("limit", 10),
        "offset": given.get("offset", 0),
    }


_READ_THREAD = ("threads", "read", _thread)
_CREATE_RUN = ("threads", "create_run", _run_create)
ROUTE_ACTIONS: dict[str, tuple[str, str, Callable[[Mapping[str, Any], Mapping[str, str], Any], dict[str, Any]]]] = {
    "createThread": ("threads", "create", thread_create_value),
    "getThread": _READ_THREAD,
    "deleteThread": ("threads", "delete", _thread),
    "copyThread": _READ_THREAD,
    "searchThreads": ("threads", "search", _thread_search),
    "getThreadState": _READ_THREAD,
    "updateThreadState": ("threads", "update", _thread_update),
    "getThreadHistory": _READ_THREAD,
    "createThreadRun": _CREATE_RUN,
    "streamThreadRun": _CREATE_RUN,
    "waitThreadRun": _CREATE_RUN,
    "streamStatelessRun": _CREATE_RUN,
    "waitStatelessRun": _CREATE_RUN,
    "listThreadRuns": _READ_THREAD,
    "getThreadRun": _READ_THREAD,
    "joinThreadRun": _READ_THREAD,
    "joinThreadRunStream": _READ_THREAD,
    "joinStatelessRunStream": _READ_THREAD,
    "deleteThreadRun": ("threads", "delete", _thread),
    "cancelThreadRun": ("threads", "update", _thread_update),
    "getRun": _READ_THREAD,
    "streamRunEvents": _READ_THREAD,
    "getRunCase": _READ_THREAD,
    "postRunFeedback": _READ_THREAD,
    "cancelRun": ("threads", "update", _thread_update),
    "listApprovals": (
        "threads",
        "search",
        lambda path, query, body: _thread_search(path, query, {"status": "interrupted"}),
    ),
    "runAgUi": ("threads", "create_run", _chat_run("threadId")),
    "runAgUiGraph": ("threads", "create_run", _chat_run("threadId")),
    "aiSdkChat": ("threads", "create_run", _chat_run("id")),
    "aiSdkGraphChat": ("threads", "create_run", _chat_run("id")),
    "aiSdkReconnect": ("threads", "read", lambda path, query, body: {"thread_id": path.get("chat_id")}),
    "aiSdkGraphReconnect": ("threads", "read", lambda path, query, body: {"thread_id": path.get("chat_id")}),
    "chat": ("threads", "create_run", _chat_run("session_id")),
    "resumeChat": ("threads", "create_run", _chat_run("session_id")),
    "searchAssistants": ("assistants", "search", _assistant_search),
    "getAssistant": ("assistants", "read", _assistant),
    "getAssistantGraph": ("assistants", "read", _assistant),
    "getAssistantSchemas": ("assistants", "read", _assistant),
    "putStoreItem": ("store", "put", _store_put),
    "getStoreItem": ("store", "get", _store_item),
    "deleteStoreItem": ("store", "delete", _store_item),
    "searchStoreItems": ("store", "search", _store_search),
    "listStoreNamespaces": ("store", "list_namespaces", _store_namespaces),
    "createCron": ("crons", "create", _cron_create),
    "createThreadCron": ("crons", "create", _cron_create),
    "searchCrons": ("crons", "search", _cron_search),
    "countCrons": ("crons", "search", _cron_search),
    "updateCron": ("crons", "update", _cron),
    "deleteCron": ("crons", "delete", _cron),
}
"""Each route's resource and action, as the Agent Server names them, and how its value is built."""
