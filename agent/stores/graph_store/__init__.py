"""The long-term store of the graphs and of ``/store/*``: LangGraph's store under each subject's namespaces.

One base (``GraphStore``, the ``SubjectStore`` views) and one file per backend, as Litestar's ``stores/`` are
laid out: ``sqlite`` (embedded, ``store.sqlite`` in the data directory) and ``postgres`` (shared, on the service's
pool). docs/store.md is the user's page; ADR 38 the decisions.
"""

from __future__ import annotations

from agent.stores.graph_store._index import VECTORS_FIELD, StoreIndex
from agent.stores.graph_store._namespaces import ANONYMOUS_LABEL, STORE_SUBJECT_KEY, subject_label
from agent.stores.graph_store._values import SEALED_FIELD
from agent.stores.graph_store.base import STORE_TTL, GraphStore, SubjectStore
from agent.stores.graph_store.errors import (
    StoreError,
    StoreIndexFailed,
    StoreIndexUnconfigured,
    StoreOutsideRun,
    StoreReservedField,
)

__all__ = (
    "ANONYMOUS_LABEL",
    "SEALED_FIELD",
    "STORE_SUBJECT_KEY",
    "STORE_TTL",
    "VECTORS_FIELD",
    "GraphStore",
    "StoreError",
    "StoreIndex",
    "StoreIndexFailed",
    "StoreIndexUnconfigured",
    "StoreOutsideRun",
    "StoreReservedField",
    "SubjectStore",
    "subject_label",
)
