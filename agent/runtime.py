"""Opening the agent: its stores in the data directory, its dependencies, and the compiled graph."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agent.actions import ActionRegistry, SqliteLedger
from agent.clock import RandomIds, SystemClock
from agent.deps import AgentDeps
from agent.graph import build_graph
from agent.interactions import InteractionLog
from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.llm.factory import close_llm_client, create_llm_client
from agent.llm.pricing import PriceTable
from agent.telemetry import TRACER_NAME, create_tracer_provider

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from opentelemetry.sdk.trace import TracerProvider

    from agent.clock import Clock, IdFactory
    from agent.config import AgentConfig
    from agent.graph import AgentGraph
    from agent.llm.protocol import LLMClient

__all__ = ("Agent", "open_agent")


@dataclass(frozen=True, slots=True)
class Agent:
    graph: AgentGraph
    deps: AgentDeps
    interactions: InteractionLog


@asynccontextmanager
async def open_agent(
    config: AgentConfig,
    *,
    llm: LLMClient | None = None,
    clock: Clock | None = None,
    ids: IdFactory | None = None,
    tracer_provider: TracerProvider | None = None,
) -> AsyncIterator[Agent]:
    """The agent on ``config.data_dir``; a paused turn stored there survives closing and reopening."""
    config.data_dir.mkdir(parents=True, exist_ok=True)
    provider = tracer_provider or create_tracer_provider()
    ledger = SqliteLedger(config.data_dir / "ledger.sqlite")
    interactions = InteractionLog(config.data_dir / "interactions.sqlite")
    try:
        async with aiosqlite.connect(config.data_dir / "checkpoints.sqlite") as connection:
            # WAL without a sync per commit: a checkpoint per superstep must not cost an fsync each
            await connection.execute("PRAGMA journal_mode=WAL")
            await connection.execute("PRAGMA synchronous=NORMAL")
            saver = AsyncSqliteSaver(connection)
            deps = AgentDeps(
                llm=llm or create_llm_client(config),
                knowledge=KnowledgeIndex(load_bundled_corpus()),
                actions=ActionRegistry.default(ledger),
                prices=PriceTable.with_overrides(config.llm.prices_path),
                tracer=provider.get_tracer(TRACER_NAME),
                clock=clock or SystemClock(),
                ids=ids or RandomIds(),
                retrieval_k=config.retrieval_k,
            )
            try:
                yield Agent(graph=build_graph(deps, saver), deps=deps, interactions=interactions)
            finally:
                if llm is None:
                    await close_llm_client(deps.llm)
    finally:
        interactions.close()
        ledger.close()
        if tracer_provider is None:
            provider.shutdown()
