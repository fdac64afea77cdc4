"""Identity while the service runs: who each request comes from, and keeping that true for open streams.

One loop timer, every ``SWEEP_S``, re-reads the tokens file if it changed and ends the open streams whose
token no longer stands: removed from the file (or its entry changed: a role taken away), or a JWT whose
``exp`` has passed. ``reload`` (SIGHUP) does both at once. A removed token is refused from its next
request on and its streams end within ``SWEEP_S`` of the change; each instance of a cluster watches its
own copy of the file.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from api.auth.authenticator import Authenticator
from api.auth.middleware import bearer_authentication
from api.auth.streams import OpenStreams

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from litestar import Litestar
    from litestar.middleware import DefineMiddleware

    from api.auth.config import AuthConfig

__all__ = ("SWEEP_S", "Identity")

logger = logging.getLogger(__name__)

SWEEP_S = 2.0
"""How often the tokens file is looked at and the open streams are checked against it and the clock."""


class Identity:
    def __init__(self, config: AuthConfig) -> None:
        """Reads the tokens file and checks the JWT settings now (``ConfigError`` stops the service)."""
        self.authenticator = Authenticator(config)
        self.streams = OpenStreams()
        self._timer: asyncio.TimerHandle | None = None

    def middleware(self) -> DefineMiddleware:
        return bearer_authentication(self.authenticator)

    @asynccontextmanager
    async def watching(self, app: Litestar) -> AsyncIterator[None]:
        """The app's lifespan with the sweep running."""
        del app
        self._timer = asyncio.get_running_loop().call_later(SWEEP_S, self._tick)
        try:
            yield
        finally:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def reload(self, why: str) -> None:
        """Re-read the tokens file now and end the streams of the tokens it no longer names."""
        self.authenticator.reload(why)
        self.sweep()

    def sweep(self) -> None:
        """End the open streams whose token no longer stands."""
        now = time.time()
        ended = self.streams.end_where(lambda principal: not self.authenticator.still_valid(principal, now))
        if ended:
            logger.info("ended %d event streams whose token was revoked or expired", ended)

    def _tick(self) -> None:
        try:
            self.authenticator.reload_if_changed()
            self.sweep()
        finally:
            self._timer = asyncio.get_running_loop().call_later(SWEEP_S, self._tick)
