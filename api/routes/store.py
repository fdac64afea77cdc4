"""The Agent Server's long-term store: put, get, delete and search items, list namespaces.

Every route works in the caller's namespaces (``GraphStore.for_subject``): another subject's items are not
there to find (``404`` on a get, nothing in a search or a listing). The same store, scoped to a run's owner, is
the ``BaseStore`` of every registered graph, so what a graph remembers for alice is read back here by alice.
With langgraph.json's ``auth.path``, its ``@auth.on.store`` handler is called first (``api.auth.authorization``):
the namespace it writes into its value is the one used, and a filter it returns holds on the items' values (an
item it excludes is not found, not listed, not deleted, not written: 403).
Labels and keys are screened as other ids a client makes up (a card number or a key in one is ``422
id_refused``); values are JSON objects, bounded by ``HARNESS_MAX_BODY_BYTES``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from langgraph.store.base import InvalidNamespaceError
from litestar import Request, delete, get, post, put
from litestar.di import NamedDependency, Provide
from litestar.handlers import HTTPRouteHandler
from litestar.params import JSONBody, QueryParameter

from agent.stores import GraphStore, StoreIndexFailed, StoreIndexUnconfigured, StoreReservedField
from api.auth import Principal
from api.auth.authorization import Decision, decision_of
from api.exceptions import AccessDenied, Invalid, NotFound, ServiceUnavailable
from api.openapi import problem_responses
from api.request_checks.client_ids import refuse_personal_ids
from api.runs.metadata_filter import matches
from contracts import store as contract
from contracts.store import DEPTH_MAX, KEY_MAX, LABEL_MAX

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from langgraph.store.base import BaseStore, Item

    from api.runs.metadata_filter import MetadataFilter

__all__ = (
    "StoreIndexUnavailable",
    "StoreIndexUnserved",
    "StoreItemNotFound",
    "StoreRequestInvalid",
    "delete_store_item",
    "get_store_item",
    "list_store_namespaces",
    "put_store_item",
    "search_store_items",
)

TAG = "agent-protocol"
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
Shown = TypeVar("Shown", bound=contract.StoreItem)


class StoreItemNotFound(NotFound):
    code = "store_item_not_found"
    title = "Store item not found"


class StoreRequestInvalid(Invalid):
    """A namespace LangGraph's store refuses (``langgraph`` as its first label, a label with a dot)."""

    code = "store_request_invalid"
    title = "Store request invalid"


class StoreIndexUnserved(Invalid):
    """``query`` without an embedding index: refused rather than answered as a search that found nothing."""

    code = "store_index_unconfigured"
    title = "Semantic search not configured"


class StoreIndexUnavailable(ServiceUnavailable):
    """``store.index``'s embedding function failed (or answered vectors of another size): nothing was written."""

    code = "store_index_failed"
    title = "Embedding failed"


class _CallersStore:
    """The store as the caller sees it: scoped to its subject, and to what langgraph.json's ``@auth.on.store``
    handler decided for the request (a plain class: Litestar checks a dependency's value against its type)."""

    __slots__ = ("decision", "store")

    def __init__(self, store: BaseStore, decision: Decision | None) -> None:
        self.store = store
        self.decision = decision

    def authorized(self, given: Sequence[str]) -> tuple[tuple[str, ...], MetadataFilter | None]:
        """The namespace to use (as the ``@auth.on.store`` handler left it in its value) and its filter."""
        decision = self.decision
        if decision is None:
            return tuple(given), None
        namespace = decision.value.get("namespace")
        if namespace is None:
            return tuple(given), decision.where
        if not isinstance(namespace, list | tuple) or not all(isinstance(label, str) for label in namespace):
            raise AccessDenied("The service's auth gave a namespace that is not a list of labels.")
        return tuple(namespace), decision.where


def _callers_store(
    request: Request[Any, Any, Any], graph_store: NamedDependency[GraphStore], principal: NamedDependency[Principal]
) -> _CallersStore:
    return _CallersStore(graph_store.for_subject(principal.subject), decision_of(request.scope))


def _in_callers_store(route: type[HTTPRouteHandler], path: str, **kwargs: Any) -> HTTPRouteHandler:
    """A store route: given ``callers``, the store as the caller sees it."""
    dependencies = {"callers": Provide(_callers_store, sync_to_thread=False)}
    return route(path, tags=[TAG], dependencies=dependencies, **kwargs)


@_in_callers_store(
    put,
    "/store/items",
    operation_id="putStoreItem",
    status_code=204,
    summary="Store an item (a JSON object) in one of the caller's namespaces",
    responses=problem_responses(401, 413, 415, 422, 503),
)
async def put_store_item(data: JSONBody[contract.StorePut], callers: NamedDependency[_CallersStore]) -> None:
    namespace, where = callers.authorized(data.namespace)
    _screen(namespace, "namespace", data.key)
    _no_nul(data.value, "value")
    if not matches(data.value, where):
        raise AccessDenied("The service's auth does not allow this value in the store (its filter excludes it).")
    try:
        await callers.store.aput(
            namespace, data.key, data.value, index=None if data.index is True else data.index, ttl=data.ttl
        )
    except InvalidNamespaceError as exc:
        raise StoreRequestInvalid(f"namespace: {exc}", fields={"namespace": str(exc)}) from None
    except StoreReservedField as exc:
        raise StoreRequestInvalid(f"value: {exc}", fields={"value": str(exc)}) from None
    except StoreIndexFailed as exc:
        raise StoreIndexUnavailable(f"The item was not stored: {exc}.") from None


@_in_callers_store(
    get,
    "/store/items",
    operation_id="getStoreItem",
    summary="One of the caller's items",
    responses=problem_responses(401, 404, 422),
)
async def get_store_item(
    *,
    callers: NamedDependency[_CallersStore],
    namespace: Annotated[
        str,
        QueryParameter(description="The namespace's labels joined with `.`", max_length=DEPTH_MAX * (LABEL_MAX + 1)),
    ],
    key: Annotated[str, QueryParameter(min_length=1, max_length=KEY_MAX)],
    refresh_ttl: Annotated[
        bool, QueryParameter(description="Renew the item's TTL (the store's default, as when it is left out: yes)")
    ] = True,
) -> contract.StoreItem:
    labels = namespace.split(".") if namespace else []
    if len(labels) > DEPTH_MAX or any(not 0 < len(label) <= LABEL_MAX or "\x00" in label for label in labels):
        message = f"must be 1 to {DEPTH_MAX} labels of 1 to {LABEL_MAX} characters (no NUL) joined with `.`"
        raise StoreRequestInvalid(f"namespace {message}.", fields={"namespace": message})
    _no_nul(key, "key")
    scoped, where = callers.authorized(labels)
    _screen(scoped, "namespace", key)
    item = await callers.store.aget(scoped, key, refresh_ttl=refresh_ttl)
    if item is None or not matches(item.value, where):
        raise StoreItemNotFound(f"There is no item {key!r} in namespace {namespace!r}.")
    return _item(item, contract.StoreItem)


@_in_callers_store(
    delete,
    "/store/items",
    operation_id="deleteStoreItem",
    status_code=204,
    summary="Delete one of the caller's items (nothing to delete is not an error)",
    responses=problem_responses(401, 413, 415, 422),
)
async def delete_store_item(data: JSONBody[contract.StoreDelete], callers: NamedDependency[_CallersStore]) -> None:
    namespace, where = callers.authorized(data.namespace)
    _screen(namespace, "namespace", data.key)
    store = callers.store
    if where and (item := await store.aget(namespace, data.key, refresh_ttl=False)) and not matches(item.value, where):
        return  # an item the filter excludes is not there to delete
    await store.adelete(namespace, data.key)


@_in_callers_store(
    post,
    "/store/items/search",
    operation_id="searchStoreItems",
    status_code=200,
    summary="The caller's items under a namespace prefix, filtered by their values' fields, newest first",
    responses=problem_responses(401, 413, 415, 422, 503),
)
async def search_store_items(
    data: JSONBody[contract.StoreSearch], callers: NamedDependency[_CallersStore]
) -> contract.StoreSearchResult:
    prefix, where = callers.authorized(data.namespace_prefix)
    _screen(prefix, "namespace_prefix")  # the filter is the contract's (``StoreSearch``) already
    try:
        found = await callers.store.asearch(
            prefix,
            query=data.query,
            filter=_and_filter(data.filter, where),
            limit=data.limit,
            offset=data.offset,
            refresh_ttl=data.refresh_ttl,
        )
    except StoreIndexUnconfigured as exc:
        raise StoreIndexUnserved(str(exc), fields={"query": str(exc)}) from None
    except StoreIndexFailed as exc:
        raise StoreIndexUnavailable(f"The query was not run: {exc}.") from None
    shown = [item for item in found if matches(item.value, where)]
    return contract.StoreSearchResult(items=[_item(item, contract.StoreSearchItem, score=item.score) for item in shown])


@_in_callers_store(
    post,
    "/store/namespaces",
    operation_id="listStoreNamespaces",
    status_code=200,
    summary="The caller's namespaces, by prefix and suffix (`*` matches any label), to a depth",
    responses=problem_responses(401, 413, 415, 422),
)
async def list_store_namespaces(
    data: JSONBody[contract.StoreNamespacesRequest], callers: NamedDependency[_CallersStore]
) -> contract.StoreNamespaces:
    prefix, where = callers.authorized(data.prefix or [])
    _screen(prefix, "prefix")
    _screen(data.suffix or [], "suffix")
    store = callers.store
    found = await store.alist_namespaces(
        prefix=prefix or None,
        suffix=tuple(data.suffix) if data.suffix else None,
        max_depth=data.max_depth,
        limit=data.limit,
        offset=data.offset,
    )
    if where:
        found = [namespace for namespace in found if await _holds_matching(store, namespace, where)]
    return contract.StoreNamespaces(namespaces=[list(namespace) for namespace in found])


def _and_filter(given: dict[str, Any] | None, where: MetadataFilter | None) -> dict[str, Any] | None:
    """The client's filter with the handler's equalities on keys it does not name, for the store to apply; what
    is found is checked against the whole of the handler's filter after (``$contains``, a key both name)."""
    merged = dict(given or {})
    for key, wanted in (where or {}).items():
        if key not in merged and not (isinstance(wanted, dict) and "$contains" in wanted):
            merged[key] = wanted["$eq"] if isinstance(wanted, dict) else wanted
    return merged or None


async def _holds_matching(store: BaseStore, namespace: tuple[str, ...], where: MetadataFilter) -> bool:
    """Whether a namespace (or one under it) holds an item the filter lets through."""
    found = await store.asearch(namespace, filter=_and_filter(None, where), limit=100)
    return any(matches(item.value, where) for item in found)


def _screen(labels: Sequence[str], field: str, key: str | None = None) -> None:
    """Refuse a label or key that carries personal data: it would be stored in the clear, and echoed."""
    ids: Iterable[tuple[str, str | None]] = [(f"{field}[{index}]", label) for index, label in enumerate(labels)]
    refuse_personal_ids([*ids, ("key", key)])


def _no_nul(value: object, field: str) -> None:
    """Refuse what no backend keeps: a NUL character anywhere in ``value`` (PostgreSQL keeps none in text or JSON,
    so the shared store would fail where the embedded one stored it), an integer past 64 bits (neither store's JSON
    holds one)."""
    unkept = _unkept(value)
    if unkept is not None:
        message = f"holds {unkept}, which the store cannot keep"
        raise StoreRequestInvalid(f"{field} {message}.", fields={field: message})


def _unkept(value: object) -> str | None:
    if isinstance(value, str):
        return "a NUL character" if "\x00" in value else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if _INT64_MIN <= value <= _INT64_MAX else "an integer past 64 bits"
    items: list[object] = []
    if isinstance(value, dict):
        items = [part for pair in value.items() for part in pair]
    elif isinstance(value, list):
        items = value
    return next((found for item in items if (found := _unkept(item)) is not None), None)


def _item(item: Item, shape: type[Shown], **extra: Any) -> Shown:
    return shape(
        namespace=list(item.namespace),
        key=item.key,
        value=item.value,
        created_at=_timestamp(item.created_at),
        updated_at=_timestamp(item.updated_at),
        **extra,
    )


def _timestamp(at: datetime) -> str:
    """ISO 8601 with its offset: SQLite's store keeps UTC without one."""
    return (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).isoformat()
