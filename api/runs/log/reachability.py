"""Which stores the shared event log could not reach on its last try, said once when one fails and once when it
answers again (the writer retries meanwhile)."""

from __future__ import annotations

import logging

__all__ = ("Reachability",)

logger = logging.getLogger("api.runs.log.redis")  # the event log's own: what an operator filters on


class Reachability:
    def __init__(self) -> None:
        self.unreachable: set[str] = set()
        """The stores the writer could not reach on its last try (``Redis``, ``PostgreSQL``)."""

    def failing(self, exc: BaseException, store: str) -> None:
        if store not in self.unreachable:
            self.unreachable.add(store)
            logger.error("%s is unreachable (%s); retrying the event log's writes", store, type(exc).__name__)

    def recovered(self, store: str) -> None:
        if store in self.unreachable:
            self.unreachable.discard(store)
            logger.warning("%s answers again; the event log's writes go on", store)
