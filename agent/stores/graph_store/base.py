"""The long-term store: LangGraph's own store (SQLite or PostgreSQL) under every subject's namespaces, sealed.

``GraphStore`` is the service's one store; what uses it gets a ``SubjectStore``, a LangGraph ``BaseStore``
that adds the subject's hidden label (``_namespaces``) to every namespace on the way in, strips it on the way
out, and seals values at rest (``_values``):

- the routes (``api.routes.store``) take ``store.for_subject(principal.subject)``;
- every registered graph is compiled with ``store.for_runs()``, whose subject is the one the service names in
  the run's config (``STORE_SUBJECT_KEY``), read at each call from LangGraph's ``get_config()``: one compiled
  graph serves every subject's runs, and a node's ``get_store()``, ``store`` parameter and ``Runtime.store`` all
  find the run owner's items.

With a key, values are sealed, so the backend's SQL cannot read them: a search with a ``filter`` pages through
the subject's items under the prefix and filters the opened values in Python (LangGraph's own comparison). With an
index (``langgraph.json``'s ``store.index``, ``use_index``), a put embeds the value's fields and keeps the vectors in
the stored value, sealed with it, and a ``query`` ranks the opened values the same way (``_index``, ADR 38).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import _compare_values

from agent.stores.graph_store._index import score, stripped, unreserved
from agent.stores.graph_store._namespaces import STORE_SUBJECT_KEY, listed, subject_label
from agent.stores.graph_store._values import open_value, seal_value
from agent.stores.graph_store.errors import StoreIndexUnconfigured, StoreOutsideRun

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

    from langgraph.store.base import Op, Result, TTLConfig

    from agent.sealing import Sealer
    from agent.stores.graph_store._index import StoreIndex

__all__ = ("STORE_TTL", "GraphStore", "SubjectStore")

logger = logging.getLogger(__name__)

STORE_TTL: TTLConfig = {"refresh_on_read": True, "sweep_interval_minutes": 1}
"""Items live forever unless put with a ``ttl`` (minutes); reading one renews it; expired ones go every minute."""
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})
"""LangGraph's filter operators (``langgraph.store.base.SearchOp``)."""
_PAGE = 500
"""How many items or namespaces one backend call reads where the service pages through a subject's."""


class GraphStore:
    """The service's long-term store on ``backend`` (LangGraph's ``AsyncSqliteStore`` or ``AsyncPostgresStore``)."""

    def __init__(
        self,
        backend: BaseStore,
        sealer: Sealer | None,
        *,
        sweep: Callable[[], Awaitable[int]],
        sweep_interval_s: float = 60.0,
    ) -> None:
        """``sweep``: the backend's removal of expired items (``sweep_ttl``), every ``sweep_interval_s``."""
        self.backend = backend
        self.sealer = sealer
        self.index: StoreIndex | None = None
        """The embedding index of ``store.index``; None: a ``query`` is refused (``StoreIndexUnconfigured``)."""
        self._sweep = sweep
        self._interval_s = sweep_interval_s

    def use_index(self, index: StoreIndex | None) -> None:
        """Embed what is put from now on with ``index`` and rank a ``query`` by it (items put before have no vectors,
        so no ``query`` finds them until they are put again)."""
        self.index = index

    def for_subject(self, subject: str | None) -> SubjectStore:
        """The store as ``subject`` (None: the one user of a service without identity) sees it."""
        label = subject_label(subject)
        return SubjectStore(self, lambda: label)

    def for_runs(self) -> SubjectStore:
        """The store handed to graphs: each call is scoped to the owner of the run it is made in."""
        return SubjectStore(self, _run_label)

    async def sweep(self) -> int:
        """Remove the expired items now; how many went."""
        return await self._sweep()

    async def erase_subject(self, subject: str | None) -> int:
        """Remove every item of ``subject``'s (an erasure of its data); how many went."""
        prefix = (subject_label(subject),)
        removed = 0
        while found := await self.backend.asearch(prefix, limit=_PAGE):
            await self.backend.abatch([PutOp(item.namespace, item.key, None) for item in found])
            removed += len(found)
        return removed

    @asynccontextmanager
    async def sweeping(self) -> AsyncIterator[GraphStore]:
        """The store with its expired items swept in the background while open."""
        task = asyncio.create_task(self._sweep_forever(), name="graph-store-sweep")
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self._interval_s)
            try:
                removed = await self.sweep()
            except Exception:
                logger.warning("sweeping the long-term store's expired items failed; retrying later", exc_info=True)
                continue
            if removed:
                logger.info("removed %d expired items from the long-term store", removed)


class SubjectStore(BaseStore):
    """A ``BaseStore`` whose namespaces are one subject's (``label()`` names it, at each call)."""

    supports_ttl = True

    def __init__(self, store: GraphStore, label: Callable[[], str]) -> None:
        self._store = store
        self._backend = store.backend
        self._sealer = store.sealer
        self._label = label
        self.ttl_config = getattr(store.backend, "ttl_config", None)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """For a sync node, which runs in a worker thread: the ops run on the backend's event loop."""
        label = self._label()  # here, in the caller's context, where the run's config is
        loop: asyncio.AbstractEventLoop = self._backend.loop  # type: ignore[attr-defined]  # both backends have one
        with contextlib.suppress(RuntimeError):
            if asyncio.get_running_loop() is loop:
                raise RuntimeError("the long-term store's sync methods cannot run on its event loop; await aget, aput…")
        return asyncio.run_coroutine_threadsafe(self._run(list(ops), label), loop).result()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self._run(list(ops), self._label())

    async def _run(self, ops: list[Op], label: str) -> list[Result]:
        return [await self._one(op, label) for op in ops]

    async def _one(self, op: Op, label: str) -> Result:
        if isinstance(op, GetOp):
            namespace = (label, *op.namespace)
            [item] = await self._backend.abatch([GetOp(namespace, op.key, op.refresh_ttl)])
            if not isinstance(item, Item):
                return None
            opened = self._opened(item, label)
            return Item(
                namespace=opened.namespace,
                key=opened.key,
                value=opened.value,
                created_at=opened.created_at,
                updated_at=opened.updated_at,
            )
        if isinstance(op, PutOp):
            namespace = (label, *op.namespace)
            value = None if op.value is None else await self._stored(dict(op.value), op.index)
            sealed = None if value is None else seal_value(self._sealer, namespace, op.key, value)
            # the backend's own index is never used: the vectors are in the value (``_index``)
            await self._backend.abatch([PutOp(namespace, op.key, sealed, index=False, ttl=op.ttl)])
            return None
        if isinstance(op, SearchOp):
            return await self._search(op, label)
        if isinstance(op, ListNamespacesOp):
            return await self._namespaces(op, label)
        raise TypeError(f"the long-term store does not know the operation {type(op).__name__}")

    async def _stored(self, value: dict[str, Any], index: Any) -> dict[str, Any]:
        store_index = self._store.index
        if store_index is None:
            return unreserved(value)
        return await store_index.indexed(unreserved(value), index)

    async def _search(self, op: SearchOp, label: str) -> list[SearchItem]:
        if op.query:
            return await self._ranked(op, label)
        prefix = (label, *op.namespace_prefix)
        if self._sealer is None or not op.filter:
            [found] = await self._backend.abatch(
                [SearchOp(prefix, op.filter, op.limit, op.offset, None, op.refresh_ttl)]
            )
            return [self._opened(item, label) for item in found]  # type: ignore[union-attr]
        wanted = op.filter
        _check_operators(wanted)
        matched: list[SearchItem] = []
        scanned = 0
        while len(matched) < op.offset + op.limit:
            page = await self._backend.asearch(prefix, limit=_PAGE, offset=scanned, refresh_ttl=False)
            scanned += len(page)
            matched += [item for item in (self._opened(found, label) for found in page) if _matches(item.value, wanted)]
            if len(page) < _PAGE:
                break
        chosen = matched[op.offset : op.offset + op.limit]
        await self._refresh(chosen, op, label)
        return chosen

    async def _ranked(self, op: SearchOp, label: str) -> list[SearchItem]:
        """The items under the prefix that have vectors and match the filter, by their similarity to ``query``."""
        index = self._store.index
        if index is None:
            raise StoreIndexUnconfigured
        _check_operators(op.filter)
        assert op.query is not None
        query = await index.query_vector(op.query)
        prefix = (label, *op.namespace_prefix)
        ranked: list[SearchItem] = []
        scanned = 0
        while True:
            page = await self._backend.asearch(prefix, limit=_PAGE, offset=scanned, refresh_ttl=False)
            scanned += len(page)
            for found in page:
                value = open_value(self._sealer, tuple(found.namespace), found.key, found.value)
                similarity = score(query, value)
                if similarity is None or (op.filter and not _matches(stripped(value), op.filter)):
                    continue
                item = self._opened(found, label, value)
                ranked.append(
                    SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, similarity)
                )
            if len(page) < _PAGE:
                break
        ranked.sort(key=lambda item: item.score or 0.0, reverse=True)
        chosen = ranked[op.offset : op.offset + op.limit]
        await self._refresh(chosen, op, label)
        return chosen

    async def _refresh(self, chosen: list[SearchItem], op: SearchOp, label: str) -> None:
        refresh = op.refresh_ttl if op.refresh_ttl is not None else (self.ttl_config or {}).get("refresh_on_read")
        if chosen and refresh:
            await self._backend.abatch([GetOp((label, *item.namespace), item.key, True) for item in chosen])

    async def _namespaces(self, op: ListNamespacesOp, label: str) -> list[tuple[str, ...]]:
        own = MatchCondition("prefix", (label,))
        namespaces: list[tuple[str, ...]] = []
        while True:
            page = await self._backend.alist_namespaces(prefix=own.path, limit=_PAGE, offset=len(namespaces))
            namespaces += page
            if len(page) < _PAGE:
                break
        stripped = (namespace[1:] for namespace in namespaces if namespace[:1] == (label,) and len(namespace) > 1)
        return listed(stripped, op.match_conditions or (), op.max_depth, op.limit, op.offset)

    def _opened(self, item: Any, label: str, value: dict[str, Any] | None = None) -> SearchItem:
        """``item`` as its subject sees it (``value``: its stored value, opened already)."""
        namespace = tuple(item.namespace)
        if namespace[:1] != (label,):
            raise RuntimeError("the long-term store answered an item of another subject's namespace")
        opened = open_value(self._sealer, namespace, item.key, item.value) if value is None else value
        return SearchItem(
            namespace[1:],
            item.key,
            stripped(opened),
            item.created_at,
            item.updated_at,
            getattr(item, "score", None),
        )


def _check_operators(wanted: dict[str, Any] | None) -> None:
    for operand in (wanted or {}).values():
        unknown = set(operand) - _OPERATORS if isinstance(operand, dict) else set()
        if unknown:
            raise ValueError(f"Unsupported operator: {sorted(unknown)[0]}")  # as LangGraph's stores say it


def _matches(value: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """LangGraph's comparison of ``value``'s fields with a filter; a field of another type than its operand (a
    number compared with an object) does not match, as in SQL, rather than fail the search."""
    try:
        return all(_compare_values(value.get(field), operand) for field, operand in wanted.items())
    except (TypeError, ValueError):
        return False


def _run_label() -> str:
    """The label the service named in the config of the run this call is made in."""
    from langgraph.config import get_config

    try:
        config = get_config()
    except RuntimeError:
        raise StoreOutsideRun from None
    label = config.get("configurable", {}).get(STORE_SUBJECT_KEY)
    if not isinstance(label, str):
        raise StoreOutsideRun
    return label
