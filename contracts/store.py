"""The LangGraph Agent Server's long-term store, as langgraph-sdk's ``client.store`` speaks it.

Field names and shapes follow langgraph-sdk (``put_item``, ``get_item``, ``delete_item``, ``search_items``,
``list_namespaces``); requests accept fields they do not read. A namespace is a list of labels: each 1 to
``LABEL_MAX`` characters with no ``.`` (the SDK joins labels with dots in ``GET /store/items``) and no NUL, at
most ``DEPTH_MAX`` of them. docs/store.md says what is served.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

__all__ = (
    "DEPTH_MAX",
    "KEY_MAX",
    "LABEL_MAX",
    "TTL_MAX_MINUTES",
    "StoreDelete",
    "StoreItem",
    "StoreNamespaces",
    "StoreNamespacesRequest",
    "StorePut",
    "StoreSearch",
    "StoreSearchItem",
    "StoreSearchResult",
)

LABEL_MAX = 256
DEPTH_MAX = 16
KEY_MAX = 1024

Label = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=LABEL_MAX,
        pattern=r"^[^.\x00]+$",
        description="A namespace label: no `.` (the SDK joins labels with dots), no NUL, not empty",
    ),
]
Namespace = Annotated[list[Label], msgspec.Meta(max_length=DEPTH_MAX)]
Key = Annotated[str, msgspec.Meta(min_length=1, max_length=KEY_MAX, pattern=r"^[^\x00]+$")]
FilterField = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[A-Za-z0-9_-]{1,128}$",
        description="A top-level field of the value (nested fields are not served)",
    ),
]
Scalar = Annotated[str, msgspec.Meta(pattern=r"^[^\x00]*$")] | int | float | bool | None
"""What a filter compares with: a string (no NUL: PostgreSQL keeps none), a number, a boolean or null."""
Comparison = Literal["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]
"""LangGraph's filter operators (``langgraph.store.base``)."""
Limit = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Offset = Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)]
TTL_MAX_MINUTES = 100 * 366 * 24 * 60
Minutes = Annotated[
    float,
    msgspec.Meta(gt=0, le=TTL_MAX_MINUTES, description="Minutes the item lives after it is written (or read)"),
]


class StorePut(msgspec.Struct, kw_only=True):
    """``PUT /store/items``: store ``value`` (a JSON object) at ``namespace`` and ``key``."""

    namespace: Annotated[Namespace, msgspec.Meta(min_length=1)]
    key: Key
    value: dict[str, Any]
    index: bool | list[str] | None = None
    """The fields to index for semantic search (``false``: none), as the Agent Server reads it; without an embedding
    index configured it changes nothing. A boolean, not the Agent Server's ``Literal[False]``: an enum of ``false``
    alone is what client generators cannot read (``true`` is taken as ``null``)."""
    ttl: Minutes | None = None


class StoreDelete(msgspec.Struct, kw_only=True):
    """``DELETE /store/items``."""

    namespace: Namespace
    key: Key


class StoreSearch(msgspec.Struct, kw_only=True):
    """``POST /store/items/search``: the items under ``namespace_prefix``, newest first."""

    namespace_prefix: Namespace = msgspec.field(default_factory=list)
    filter: dict[FilterField, Scalar | dict[Comparison, Scalar]] | None = None
    """Top-level fields of the value, each a string, number, boolean or null to equal, or LangGraph's comparisons
    (``{"$gte": 2, "$lt": 5}``: ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``)."""
    limit: Limit = 10
    offset: Offset = 0
    query: str | None = None
    """Semantic search: ``422 store_index_unconfigured`` without an embedding index (docs/store.md)."""
    refresh_ttl: bool | None = None


class StoreNamespacesRequest(msgspec.Struct, kw_only=True):
    """``POST /store/namespaces``: the caller's namespaces, matching ``prefix`` and ``suffix`` (``*`` matches
    any label), cut to ``max_depth`` labels."""

    prefix: Namespace | None = None
    suffix: Namespace | None = None
    max_depth: Annotated[int, msgspec.Meta(ge=1)] | None = None
    limit: Limit = 100
    offset: Offset = 0


class StoreItem(msgspec.Struct, kw_only=True):
    namespace: list[str]
    key: str
    value: dict[str, Any]
    created_at: str
    updated_at: str


class StoreSearchItem(StoreItem, kw_only=True):
    score: float | None = None


class StoreSearchResult(msgspec.Struct, kw_only=True):
    items: list[StoreSearchItem]


class StoreNamespaces(msgspec.Struct, kw_only=True):
    namespaces: list[list[str]]
