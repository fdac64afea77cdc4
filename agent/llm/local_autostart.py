"""The ``local`` provider's model server, started for the caller when nobody runs one already.

``harness serve --provider local`` and ``harness eval --provider local`` both need the bundled SmolLM2 up
before the first turn and gone after the last; a configured ``HARNESS_LLM_LOCAL_BASE_URL`` (or the shared
``HARNESS_LLM_BASE_URL`` for a first provider) means somebody else runs it, and nothing is started.
"""

from __future__ import annotations

from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING

import msgspec

from agent.llm.local_server import LocalModelServer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from agent.config import AgentConfig

__all__ = ("local_model_served", "needs_local_server", "serving_local_model")


def needs_local_server(config: AgentConfig) -> bool:
    """Whether ``config`` uses the bundled model alone and names no server for it."""
    llm = config.llm
    return llm.providers == ("local",) and llm.settings_for("local").base_url is None


@asynccontextmanager
async def serving_local_model(config: AgentConfig) -> AsyncIterator[AgentConfig]:
    """``config`` itself, or, when it needs one, ``config`` pointed at a freshly started local model server
    that is stopped again on exit."""
    if not needs_local_server(config):
        yield config
        return
    async with LocalModelServer() as server:
        yield _pointed_at(config, server)


@contextmanager
def local_model_served(config: AgentConfig) -> Iterator[AgentConfig]:
    """``serving_local_model`` for callers outside an event loop (``harness serve`` before uvicorn runs)."""
    if not needs_local_server(config):
        yield config
        return
    with LocalModelServer() as server:
        yield _pointed_at(config, server)


def _pointed_at(config: AgentConfig, server: LocalModelServer) -> AgentConfig:
    llm = msgspec.structs.replace(config.llm, base_url=server.base_url, model=server.model)
    return msgspec.structs.replace(config, llm=llm)
