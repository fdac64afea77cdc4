"""Opening the agent: its stores, its dependencies, and the compiled graph."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.actions import ActionRegistry
from agent.clock import RandomIds, SystemClock
from agent.deps import AgentDeps
from agent.graph import build_graph
from agent.graph_tracing import tracing_to
from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.llm.factory import close_llm_client, create_llm_client
from agent.llm.pricing import PriceTable
from agent.llm.traced import traced
from agent.stores import open_stores
from agent.telemetry import TRACER_NAME, create_tracer_provider

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from opentelemetry.sdk.trace import TracerProvider

    from agent.clock import Clock, IdFactory
    from agent.config import AgentConfig
    from agent.graph import AgentGraph
    from agent.interactions import InteractionLog
    from agent.llm.protocol import LLMClient
    from agent.stores import AgentStores

__all__ = ("Agent", "open_agent")


@dataclass(frozen=True, slots=True)
class Agent:
    graph: AgentGraph
    deps: AgentDeps
    stores: AgentStores

    @property
    def interactions(self) -> InteractionLog:
        return self.stores.interactions


@asynccontextmanager
async def open_agent(
    config: AgentConfig,
    *,
    llm: LLMClient | None = None,
    clock: Clock | None = None,
    ids: IdFactory | None = None,
    tracer_provider: TracerProvider | None = None,
) -> AsyncIterator[Agent]:
    """The agent on its stores (``config.data_dir``, or PostgreSQL); a paused turn survives a restart."""
    provider = tracer_provider or create_tracer_provider()
    try:
        async with open_stores(config) as stores:
            tracer = provider.get_tracer(TRACER_NAME)
            deps = AgentDeps(
                llm=traced(llm or create_llm_client(config), tracer),
                knowledge=KnowledgeIndex(load_bundled_corpus()),
                actions=ActionRegistry.default(stores.ledger),
                prices=PriceTable.with_overrides(config.llm.prices_path),
                tracer=tracer,
                clock=clock or SystemClock(),
                ids=ids or RandomIds(),
                retrieval_k=config.retrieval_k,
            )
            try:
                with tracing_to(provider):
                    yield Agent(graph=build_graph(deps, stores.checkpointer), deps=deps, stores=stores)
            finally:
                if llm is None:
                    await close_llm_client(deps.llm)
    finally:
        if tracer_provider is None:
            provider.shutdown()
