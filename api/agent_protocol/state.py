"""A thread's state, history and updates, read from and written to its graph's checkpoints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.graphs import SUPPORT_GRAPH_ID
from api.agent_protocol.views import empty_state, state_view
from api.exceptions import AssistantNotFound
from contracts.agent_protocol import ThreadCheckpoint

if TYPE_CHECKING:
    from agent.graphs import GraphRegistry, RegisteredGraph
    from api.runs.log.threads import ThreadRecord
    from contracts.agent_protocol import ThreadState

__all__ = ("thread_graph", "thread_history", "thread_state", "update_thread_state")


def thread_graph(graphs: GraphRegistry, thread: ThreadRecord) -> RegisteredGraph:
    graph_id = thread.graph_id or SUPPORT_GRAPH_ID
    registered = graphs.get(graph_id)
    if registered is None:
        raise AssistantNotFound(f"Thread {thread.thread_id} ran graph {graph_id!r}, which is not served now.")
    return registered


async def thread_state(graphs: GraphRegistry, thread: ThreadRecord) -> ThreadState:
    config = _config(thread)
    async with thread_graph(graphs, thread).graph_for(config) as graph:
        snapshot = await graph.aget_state(config)
    return empty_state() if snapshot.created_at is None else state_view(snapshot)


async def thread_history(
    graphs: GraphRegistry, thread: ThreadRecord, *, limit: int, before: str | dict[str, Any] | None
) -> list[ThreadState]:
    config = _config(thread)
    before_id = _checkpoint_id(before)
    before_config = None if before_id is None else {"configurable": {"checkpoint_id": before_id}}
    async with thread_graph(graphs, thread).graph_for(config) as graph:
        return [
            state_view(snapshot)
            async for snapshot in graph.aget_state_history(config, limit=limit, before=before_config)  # type: ignore[arg-type]
        ]


async def update_thread_state(
    graphs: GraphRegistry, thread: ThreadRecord, values: Any, as_node: str | None
) -> ThreadCheckpoint:
    config = _config(thread)
    async with thread_graph(graphs, thread).graph_for(config) as graph:
        updated = await graph.aupdate_state(config, values, as_node=as_node)
    configurable = updated.get("configurable", {})
    return ThreadCheckpoint(
        thread_id=thread.thread_id,
        checkpoint_ns=configurable.get("checkpoint_ns", ""),
        checkpoint_id=configurable.get("checkpoint_id"),
    )


def _checkpoint_id(before: str | dict[str, Any] | None) -> str | None:
    """The checkpoint id a history's ``before`` names (an id, a checkpoint, or a config holding one); nothing else
    of it reaches the checkpointer (the thread is the request's)."""
    if isinstance(before, dict):
        inner = before.get("configurable", before)
        before = inner.get("checkpoint_id") if isinstance(inner, dict) else None
    return before if isinstance(before, str) else None


def _config(thread: ThreadRecord) -> Any:
    return {"configurable": {"thread_id": thread.thread_id}}
