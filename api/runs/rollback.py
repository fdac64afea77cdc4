"""Taking a run back out of its thread's checkpoints (``multitask_strategy`` ``rollback``).

Every checkpoint a run writes carries its run id in its metadata (``run_options.graph_run_config`` names it, and
LangGraph copies it there), so the checkpoints before the run are the thread's without those. LangGraph's savers
(SQLite, PostgreSQL) do not implement ``adelete_for_runs``; what they do implement is enough: the checkpoints kept
are read (with their pending writes), the thread's checkpoints deleted, and the kept ones written back, oldest
first, each with its own id, parent, metadata and writes. The thread's state and history are then exactly those
before the run: no message of it, so no tool call it left unanswered.

The thread has no run while this happens (the caller has ended the run and holds the thread), so nothing writes
between the read and the writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.runs.checkpoints import oldest_first, put_checkpoint

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

__all__ = ("rewind",)


async def rewind(saver: BaseCheckpointSaver[Any], thread_id: str, run_id: str) -> int:
    """Remove the checkpoints ``run_id`` wrote in the thread ``thread_id``; how many were removed."""
    found = [held async for held in saver.alist({"configurable": {"thread_id": thread_id}})]
    kept = [held for held in found if (held.metadata or {}).get("run_id") != run_id]
    if len(kept) == len(found):
        return 0
    try:
        await saver.adelete_for_runs([run_id])
    except NotImplementedError:
        await saver.adelete_thread(thread_id)
        for held in oldest_first(kept):
            await put_checkpoint(saver, thread_id, held)
    return len(found) - len(kept)
