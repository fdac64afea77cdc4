"""What a run was given, read back from its thread's checkpoints: the event log holds what a run did, not this.

Each checkpoint is tagged with the id of the run that wrote it (``run_options.graph_run_config``): the run's input
is the value of the ``__start__`` channel of its ``input`` checkpoint, and each answer to one of its interrupts is
the ``__resume__`` write of the ``Command(resume=...)`` on the checkpoint it waited at. Both are as durable as the
thread (SQLite or PostgreSQL), are erased with its session and go with a rolled-back run. A2A's ``GetTask`` shows
them as the client's messages (``api.a2a.client_messages``); ``harness eval capture`` writes them into a case
(``api.runs.capture_source``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

__all__ = ("RunInputs", "run_inputs")

_START = "__start__"
_NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
"""The task id LangGraph writes a ``Command``'s values under (private to it since 1.0: ``langgraph._internal``)."""
_RESUME = "__resume__"


@dataclass(frozen=True, slots=True)
class RunInputs:
    """A run's inputs and the answers to its interrupts, each in order, as the graph took them."""

    inputs: list[Any]
    """The input of each ``input`` checkpoint of the run (one, for a run started with an input; none, for a run
    started with a ``Command``)."""
    resumes: list[Any]
    """The value of each ``Command(resume=...)`` that answered one of its interrupts."""


async def run_inputs(checkpointer: BaseCheckpointSaver[Any], thread_id: str, run_id: str) -> RunInputs:
    """What the run ``run_id`` of the thread ``thread_id`` (its session) was given; empty lists for a run whose
    checkpoints are gone (erased, rolled back) or that wrote none."""
    config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    held = [found async for found in checkpointer.alist(config, filter={"run_id": run_id})]
    held.sort(key=lambda found: found.config["configurable"]["checkpoint_id"])  # uuid6: oldest first
    inputs: list[Any] = []
    resumes: list[Any] = []
    for found in held:
        if (found.metadata or {}).get("source") == "input":
            given = found.checkpoint["channel_values"].get(_START)
            if given is not None:
                inputs.append(given)
        for writer, channel, value in found.pending_writes or ():
            if writer == _NULL_TASK_ID and channel == _RESUME:
                resumes.append(value)
    return RunInputs(inputs, resumes)
