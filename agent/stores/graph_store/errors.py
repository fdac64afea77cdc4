"""What the long-term store refuses, raised to a graph's node or mapped by ``api.routes.store`` to a problem (422;
503 for a failing embedding function).

StoreError (``AgentError``, ``ValueError``)
├── StoreIndexUnconfigured   a ``query`` (semantic search) where no embedding index is configured
├── StoreIndexFailed         the configured embedding function failed or answered vectors of another size
├── StoreReservedField       a value holding the field the store keeps its vectors in
└── StoreOutsideRun          the graphs' store used outside a run of the service (no subject to scope it to)
"""

from __future__ import annotations

from agent.errors import AgentError

__all__ = ("StoreError", "StoreIndexFailed", "StoreIndexUnconfigured", "StoreOutsideRun", "StoreReservedField")


class StoreError(AgentError, ValueError):
    """The long-term store cannot do what it was asked; the message says why, never a value."""


class StoreIndexUnconfigured(StoreError):
    """A ``query`` asks for semantic search, which needs an embedding index that is not configured: answering
    the items unranked (or none) would look like a search that found nothing."""

    def __init__(self) -> None:
        super().__init__(
            "semantic search (`query`) needs an embedding index, and this service has none configured; "
            "search by namespace and `filter` instead (docs/store.md)"
        )


class StoreIndexFailed(StoreError):
    """The embedding function of ``store.index`` failed, or answered vectors of another size than ``dims``: the
    item is not written (an item without its vectors would drop out of every search unnoticed)."""


class StoreReservedField(StoreError):
    """A value holding the field the store keeps an item's vectors in."""

    def __init__(self, field: str) -> None:
        super().__init__(f"a stored value may not hold the field {field!r}: the store keeps an item's vectors there")


class StoreOutsideRun(StoreError):
    """The store handed to graphs scopes every call to the subject of the run it is called in; outside a run of
    the service (a graph invoked by hand) there is no subject to scope to, so nothing is read or written."""

    def __init__(self) -> None:
        super().__init__("the service's store is only reachable from a node of a run the service started")
