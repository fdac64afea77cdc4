"""The payloads of a run of any registered LangGraph graph (issue 26), beside those of the support agent.

A registered graph is not the support agent: it has no ``ChatResponse`` to end with and its streams are
LangGraph's own. So its run logs, besides ``node_started``/``node_completed``, every part of the stream modes
the run asked for (``GraphPart``), each interrupt it stops at (``InterruptInfo``), and, once it is done, its
final state (``RunCompleted``). Every ``data``, ``value`` and ``output`` is JSON-safe, redacted like every
payload the service stores, and bounded in size (``agent.graphs.json_safe``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

__all__ = ("GRAPH_STREAM_MODES", "GraphPart", "GraphStreamMode", "InterruptInfo", "RunCompleted")

GraphStreamMode = Literal["values", "updates", "messages", "custom", "debug", "checkpoints", "tasks", "events"]
GRAPH_STREAM_MODES: tuple[GraphStreamMode, ...] = (
    "values",
    "updates",
    "messages",
    "custom",
    "debug",
    "checkpoints",
    "tasks",
    "events",
)

Namespace = Annotated[
    list[str],
    msgspec.Meta(
        description=(
            "Where in the graph it happened: empty for the root graph, else one `<node>:<task id>` per subgraph "
            'level, outermost first (LangGraph\'s own namespace, e.g. `["step:1f0e…"]`).'
        )
    ),
]


class GraphPart(msgspec.Struct, kw_only=True):
    """One part of one of LangGraph's stream modes, as the graph streamed it."""

    mode: Annotated[
        GraphStreamMode,
        msgspec.Meta(
            description=(
                "The LangGraph stream mode. `messages` is the tuple form (`messages-tuple` in the Agent Protocol); "
                "`events` is LangChain's callback stream (`astream_events` v2: model, tool and chain events), as "
                "the Agent Server sends it."
            )
        ),
    ]
    ns: Namespace
    data: Annotated[
        Any,
        msgspec.Meta(
            description=(
                "The part: `values` the whole state (with `__interrupt__` when the graph stopped at one), `updates` "
                "`{node: update}`, `messages` `[message, metadata]` (the message as LangChain's `model_dump()`), "
                "`custom` what a node wrote, `debug`, `checkpoints` and `tasks` as LangGraph gives them. A part "
                'larger than the limit is replaced by `{"__cut__": {"size_bytes": …, "limit_bytes": …}}`.'
            )
        ),
    ]


class InterruptInfo(msgspec.Struct, kw_only=True):
    """An ``interrupt()`` the graph stopped at, waiting for ``Command(resume=...)``."""

    id: Annotated[str, msgspec.Meta(description="LangGraph's interrupt id; a resume may answer it by this id.")]
    value: Annotated[
        Any,
        msgspec.Meta(
            description=(
                "What the node passed to `interrupt()`. An approval request names `action`, `args` and `summary`."
            )
        ),
    ]
    ns: Namespace


class RunCompleted(msgspec.Struct, kw_only=True):
    """The terminal payload of a run of a registered graph that finished: its final state."""

    output: Annotated[Any, msgspec.Meta(description="The graph's state values when the run ended.")]
