"""One of a subject's open-stream slots, taken before a stream's response starts and given back when it ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from api.runs.cluster.quotas import StreamQuota
    from api.runs.principal import Principal

__all__ = ("StreamSlot",)


class StreamSlot:
    """None is held for the one user of a service without identity."""

    def __init__(self, quota: StreamQuota, slot: str | None) -> None:
        self._quota = quota
        self._slot = slot

    @classmethod
    async def take(cls, quota: StreamQuota, principal: Principal) -> StreamSlot:
        """A slot for one more stream of ``principal``; ``TooManyStreams`` (429) when none is free."""
        if principal.subject is None:
            return cls(quota, None)
        return cls(quota, await quota.acquire(principal.subject))

    async def release(self) -> None:
        if self._slot is not None:
            slot, self._slot = self._slot, None
            await self._quota.release(slot)

    def hold(self, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """``body``, giving the slot back when it ends."""
        if self._slot is None:
            return body
        return self._held(body)

    async def _held(self, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        try:
            async for chunk in body:
                yield chunk
                del chunk  # not kept alive while the next one is awaited
        finally:
            await self.release()
