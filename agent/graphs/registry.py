"""Every graph the service serves, by graph id and by assistant id: the support agent and a config's graphs.

Each graph is one assistant of the Agent Protocol, with the id the LangGraph Agent Server gives it,
``uuid5(6ba7b821-9dad-11d1-80b4-00c04fd430c8, graph_id)`` (not ``uuid.NAMESPACE_OID``, ``6ba7b812-…``: two
digits differ), so an SDK client that computed or stored an id against the Agent Server finds the same graph
here. The support agent is registered like any other graph, as ``support``, from the graph ``open_agent``
built (nothing about how it is built or runs changes), and is the default when no config names graphs;
with a config, its first graph is the default.
"""

from __future__ import annotations

import uuid
from contextlib import asynccontextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agent.config import ConfigError
from agent.graphs.config import read_graphs_config
from agent.graphs.environment import apply_graphs_config
from agent.graphs.loading import load_graphs, load_store_index
from agent.graphs.run_hooks import GRAPH_RUNS
from agent.graphs.schemas import graph_schemas
from agent.graphs.topology import graph_topology, node_roles

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable, Iterator
    from contextlib import AbstractAsyncContextManager
    from pathlib import Path

    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.store.base import BaseStore

    from agent.graphs.compiled import CompiledGraph
    from agent.graphs.config import ThreadTtl
    from agent.graphs.loading import LoadedGraph
    from agent.graphs.run_hooks import RunHooks
    from agent.graphs.schemas import GraphSchemas
    from agent.stores import StoreIndex
    from contracts import GraphTopology

__all__ = (
    "ASSISTANT_NAMESPACE",
    "SUPPORT_DESCRIPTION",
    "SUPPORT_GRAPH_ID",
    "GraphRegistry",
    "RegisteredGraph",
    "assistant_id_of",
    "open_registry",
)

ASSISTANT_NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
SUPPORT_GRAPH_ID = "support"
SUPPORT_DESCRIPTION = (
    "The built-in support agent: input guardrails, retrieval over the knowledge base, a streamed answer, and a "
    "person's approval before a refund or an account deletion."
)
_UNNAMED = "LangGraph"
"""The name LangGraph gives a compiled graph nobody named."""


def assistant_id_of(graph_id: str) -> str:
    """The Agent Server's deterministic assistant id of ``graph_id``."""
    return str(uuid.uuid5(ASSISTANT_NAMESPACE, graph_id))


class RegisteredGraph:
    """One servable graph: its ids, what to show of it, and how to get it compiled for a run."""

    def __init__(
        self,
        graph_id: str,
        graph: CompiledGraph,
        *,
        description: str | None = None,
        loaded: LoadedGraph | None = None,
        hooks: RunHooks = GRAPH_RUNS,
    ) -> None:
        """``graph`` is the compiled graph (for a factory: the one it gave when loaded); ``loaded`` is how it was
        loaded from a config, when it was; ``hooks``: how its input enters and its stops settle (any graph's, or
        the support agent's)."""
        self.graph_id = graph_id
        self.hooks = hooks
        self.assistant_id = assistant_id_of(graph_id)
        self.name = graph.name if graph.name and graph.name != _UNNAMED else graph_id
        self.description = description
        self.topology: GraphTopology = graph_topology(graph)
        self.node_roles = node_roles(graph)
        """The nodes that declare a ``role`` (``approval``, ``action``): what a chat UI reads from them."""
        """With the contract's ``session_id`` empty: a run draws its own (``graph_topology(graph, session)``)."""
        self._graph = graph
        self._loaded = loaded

    @cached_property
    def schemas(self) -> GraphSchemas:
        """Built when first asked for (pydantic takes tens of milliseconds a graph): an eval registers the
        support agent's graph once per case and never asks."""
        return graph_schemas(self._graph)

    @classmethod
    def from_loaded(cls, loaded: LoadedGraph) -> RegisteredGraph:
        spec = loaded.spec
        return cls(spec.graph_id, loaded.probe, description=spec.description, loaded=loaded)

    @property
    def is_factory(self) -> bool:
        """True when every run gets a graph of its own, made by the user's factory for its config."""
        return self._loaded is not None and self._loaded.is_factory

    def graph_for(self, config: RunnableConfig) -> AbstractAsyncContextManager[CompiledGraph]:
        """``async with registered.graph_for(config) as graph``: the compiled graph to run with ``config``, on
        the service's checkpointer; a factory's is made for this run and released after it."""
        if self._loaded is not None:
            return self._loaded.graph_for(config)
        return _as_is(self._graph)

    def __repr__(self) -> str:
        return f"RegisteredGraph({self.graph_id!r}, assistant_id={self.assistant_id!r})"


class GraphRegistry:
    """The registered graphs in order, found by graph id or by assistant id."""

    def __init__(
        self,
        graphs: Iterable[RegisteredGraph],
        *,
        thread_ttl: ThreadTtl | None = None,
        store_index: StoreIndex | None = None,
    ) -> None:
        self.thread_ttl = thread_ttl
        """The config's ``checkpointer.ttl``: how long a thread may stay idle before it is deleted."""
        self.store_index = store_index
        """The config's ``store.index``: what embeds the long-term store's values for a ``query``."""
        self._graphs: dict[str, RegisteredGraph] = {}
        for graph in graphs:
            if graph.graph_id in self._graphs:
                reserved = " (the built-in support agent's)" if graph.graph_id == SUPPORT_GRAPH_ID else ""
                raise ConfigError(f"graph id {graph.graph_id!r}{reserved} is registered twice; rename one")
            self._graphs[graph.graph_id] = graph
        if not self._graphs:
            raise ConfigError("a graph registry needs at least one graph")
        self._by_assistant = {graph.assistant_id: graph for graph in self._graphs.values()}

    @property
    def default(self) -> RegisteredGraph:
        """The first graph a config named, or the support agent when none did."""
        others = [graph for graph in self._graphs.values() if graph.graph_id != SUPPORT_GRAPH_ID]
        return others[0] if others else next(iter(self._graphs.values()))

    def get(self, graph_or_assistant_id: str) -> RegisteredGraph | None:
        """The graph with this graph id, or this assistant id (a UUID, in any of its spellings)."""
        found = self._graphs.get(graph_or_assistant_id)
        if found is not None:
            return found
        try:
            return self._by_assistant.get(str(uuid.UUID(graph_or_assistant_id)))
        except ValueError:
            return None

    def __getitem__(self, graph_or_assistant_id: str) -> RegisteredGraph:
        found = self.get(graph_or_assistant_id)
        if found is None:
            raise KeyError(graph_or_assistant_id)
        return found

    def __contains__(self, graph_or_assistant_id: object) -> bool:
        return isinstance(graph_or_assistant_id, str) and self.get(graph_or_assistant_id) is not None

    def __iter__(self) -> Iterator[RegisteredGraph]:
        return iter(self._graphs.values())

    def __len__(self) -> int:
        return len(self._graphs)

    @property
    def graph_ids(self) -> list[str]:
        return list(self._graphs)


async def open_registry(
    config_path: str | Path | None,
    *,
    support: CompiledGraph,
    support_hooks: RunHooks,
    checkpointer: BaseCheckpointSaver[Any] | None,
    store: BaseStore | None = None,
) -> GraphRegistry:
    """The support agent (the graph ``open_agent`` built, run with ``support_hooks``) and the graphs of the
    ``langgraph.json`` at ``config_path``, if one is given: its ``env`` and ``dependencies`` applied first, every
    graph loaded on ``checkpointer`` and ``store`` (the service's). ``ConfigError`` (a ``GraphLoadError`` when graphs
    fail) stops the start."""
    graphs = [RegisteredGraph(SUPPORT_GRAPH_ID, support, description=SUPPORT_DESCRIPTION, hooks=support_hooks)]
    thread_ttl = None
    store_index = None
    if config_path is not None:
        config = read_graphs_config(config_path)
        if any(spec.graph_id == SUPPORT_GRAPH_ID for spec in config.graphs):
            raise ConfigError(f"{config.path}: graph id {SUPPORT_GRAPH_ID!r} is the built-in support agent's")
        apply_graphs_config(config)
        graphs += [RegisteredGraph.from_loaded(loaded) for loaded in await load_graphs(config, checkpointer, store)]
        thread_ttl = config.thread_ttl
        store_index = load_store_index(config)
    return GraphRegistry(graphs, thread_ttl=thread_ttl, store_index=store_index)


@asynccontextmanager
async def _as_is(graph: CompiledGraph) -> AsyncIterator[CompiledGraph]:
    yield graph
