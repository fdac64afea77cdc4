"""The graphs the service serves: the support agent, and those of the ``langgraph.json`` it was given.

``harness serve`` loads them once before it starts (``check_graphs``), so a graph that fails to import or
compile stops the start with one line per graph instead of a traceback from the app's start-up; the app then
registers them on its stores' checkpointer and long-term store (``open_graphs``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import SupportRuns
from agent.graphs import apply_graphs_config, load_graphs, load_store_index, open_registry, read_graphs_config

if TYPE_CHECKING:
    from agent import Agent
    from agent.graphs import GraphRegistry
    from api.settings import Settings

__all__ = ("check_graphs", "open_graphs")


async def check_graphs(settings: Settings) -> None:
    """Raise ``GraphLoadError`` (a ``ConfigError``) naming every configured graph that does not load, or a
    ``ConfigError`` when the store's embedding function does not."""
    if settings.graphs_config is None:
        return
    config = read_graphs_config(settings.graphs_config)
    apply_graphs_config(config)
    await load_graphs(config, None)
    load_store_index(config)


async def open_graphs(settings: Settings, agent: Agent) -> GraphRegistry:
    """The registry, its graphs on the agent's checkpointer and long-term store, which embeds with the config's
    ``store.index``."""
    graph_store = agent.stores.graph_store
    registry = await open_registry(
        settings.graphs_config,
        support=agent.graph,
        support_hooks=SupportRuns(agent),
        checkpointer=agent.stores.checkpointer,
        store=graph_store.for_runs() if graph_store is not None else None,
    )
    if graph_store is not None:
        graph_store.use_index(registry.store_index)
    return registry
