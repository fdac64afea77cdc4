"""Any LangGraph graph, served like the support agent (issue 26): the agent side.

- ``open_registry``: the support agent and the graphs of a ``langgraph.json`` (``read_graphs_config``,
  ``apply_graphs_config``, ``load_graphs``), as a ``GraphRegistry`` of ``RegisteredGraph``s, found by graph id
  or by the Agent Server's assistant id (``assistant_id_of``);
- ``graph_topology`` and ``graph_schemas``: what any compiled graph looks like and takes;
- ``GraphStream``: one run of a graph as ``NodeStarted``/``NodeCompleted``/``GraphPart`` payloads, then its
  ``GraphOutcome`` (paused at ``InterruptInfo``s, or ``RunCompleted``); ``to_json_safe`` is how every value it
  logs is made JSON-safe, redacted and bounded;
- ``RunHooks``: how a graph's input enters a run and its stops settle (``GRAPH_RUNS`` for any graph; the support
  agent has its own, ``agent.SupportRuns``).
"""

from __future__ import annotations

from agent.graphs.config import (
    AuthSpec,
    GraphsConfig,
    GraphSpec,
    ObjectPath,
    StoreIndexSpec,
    ThreadTtl,
    read_graphs_config,
)
from agent.graphs.environment import apply_graphs_config
from agent.graphs.json_safe import DEFAULT_PART_LIMIT_BYTES, describe_error, to_json_safe
from agent.graphs.loading import (
    GraphFailure,
    GraphLoadError,
    LoadedGraph,
    load_auth_object,
    load_graphs,
    load_store_index,
)
from agent.graphs.registry import (
    ASSISTANT_NAMESPACE,
    SUPPORT_GRAPH_ID,
    GraphRegistry,
    RegisteredGraph,
    assistant_id_of,
    open_registry,
)
from agent.graphs.run_hooks import (
    GRAPH_RUNS,
    Finish,
    GraphRuns,
    Pause,
    RunContext,
    RunHooks,
    Settlement,
    approval_for,
    approval_of,
)
from agent.graphs.schemas import GraphSchemas, graph_schemas
from agent.graphs.streaming import GraphOutcome, GraphStream
from agent.graphs.topology import graph_topology
from agent.graphs.translate import DEFAULT_MODES, GraphEvent, PartTranslator, parse_modes

__all__ = (
    "ASSISTANT_NAMESPACE",
    "DEFAULT_MODES",
    "DEFAULT_PART_LIMIT_BYTES",
    "GRAPH_RUNS",
    "SUPPORT_GRAPH_ID",
    "AuthSpec",
    "Finish",
    "GraphEvent",
    "GraphFailure",
    "GraphLoadError",
    "GraphOutcome",
    "GraphRegistry",
    "GraphRuns",
    "GraphSchemas",
    "GraphSpec",
    "GraphStream",
    "GraphsConfig",
    "LoadedGraph",
    "ObjectPath",
    "PartTranslator",
    "Pause",
    "RegisteredGraph",
    "RunContext",
    "RunHooks",
    "Settlement",
    "StoreIndexSpec",
    "ThreadTtl",
    "apply_graphs_config",
    "approval_for",
    "approval_of",
    "assistant_id_of",
    "describe_error",
    "graph_schemas",
    "graph_topology",
    "load_auth_object",
    "load_graphs",
    "load_store_index",
    "open_registry",
    "parse_modes",
    "read_graphs_config",
    "to_json_safe",
)
