"""Writing a thread's checkpoints back, under its own id or another's: what a rollback and a thread copy share.

LangGraph's savers (SQLite, PostgreSQL, and the sealed serializer on either) implement neither ``acopy_thread`` nor
``adelete_for_runs``; what they do implement is enough. A checkpoint read with ``alist`` (its values opened, when
sealed) is put again with ``aput`` (sealed again) under the thread named, with its own id, its parent's id, its
metadata and its pending writes, so the thread's state and history read back as they were.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

__all__ = ("copy_checkpoints", "oldest_first", "put_checkpoint")


async def copy_checkpoints(saver: BaseCheckpointSaver[Any], source: str, target: str) -> int:
    """Copy every checkpoint of the thread ``source`` (with its pending writes) to the thread ``target``, which has
    none; how many were copied. What a run of ``source`` commits while they are read may be left out (a busy thread
    is copied as far as its checkpoints are committed)."""
    try:
        await saver.acopy_thread(source, target)
    except NotImplementedError:
        pass
    else:
        return len([held async for held in saver.alist({"configurable": {"thread_id": target}})])
    found = [held async for held in saver.alist({"configurable": {"thread_id": source}})]
    for held in oldest_first(found):
        await put_checkpoint(saver, target, held)
    return len(found)


def oldest_first(found: list[CheckpointTuple]) -> list[CheckpointTuple]:
    """Checkpoint ids are time-ordered (uuid6): oldest first, each parent before its children."""
    return sorted(found, key=_position)


def _position(held: CheckpointTuple) -> tuple[str, str]:
    configurable = held.config["configurable"]
    return configurable["checkpoint_id"], configurable.get("checkpoint_ns", "")


async def put_checkpoint(saver: BaseCheckpointSaver[Any], thread_id: str, held: CheckpointTuple) -> None:
    """Write ``held`` (read from any thread) into the thread ``thread_id``: same id, parent, metadata and writes."""
    namespace = held.config["configurable"].get("checkpoint_ns", "")
    parent: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}
    if held.parent_config is not None and (parent_id := held.parent_config["configurable"].get("checkpoint_id")):
        parent["configurable"]["checkpoint_id"] = parent_id
    metadata = dict(held.metadata or {})
    if "thread_id" in metadata:
        metadata["thread_id"] = thread_id
    checkpoint = held.checkpoint
    stored = await saver.aput(parent, checkpoint, metadata, dict(checkpoint["channel_versions"]))  # type: ignore[arg-type]
    writes: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for task_id, channel, value in held.pending_writes or ():
        writes[task_id].append((channel, value))
    for task_id, task_writes in writes.items():
        await saver.aput_writes(stored, task_writes, task_id)
