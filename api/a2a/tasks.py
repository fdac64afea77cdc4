"""A task as its run's events so far make it: read from the run's memory when it executes here, else from the log
(the same two places ``RunStreams.follow`` replays from), on any instance; the client's messages among them are
read back from the graph's checkpoints (``api.a2a.client_messages``), as the log does not hold them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.a2a.client_messages import client_messages
from api.a2a.errors import TaskNotFound
from api.a2a.stream import project_events
from api.a2a.task import TaskProjection
from api.chat_runs import takes_messages
from api.runs.errors import RunNotFound

if TYPE_CHECKING:
    from agent.graphs import RegisteredGraph
    from api.auth import Principal
    from api.runs.log.records import RunRecord, StoredEvent
    from api.runs.registry import RunRegistry
    from api.runs.run import Run
    from api.runs.threads import ThreadBook

__all__ = ("find_task", "task_so_far")

_PAUSED = "paused"
"""The event a run waits at an interrupt with: what follows it is the run resumed by an answer."""


async def find_task(
    runs: RunRegistry, threads: ThreadBook, registered: RegisteredGraph, task_id: str, principal: Principal
) -> Run | RunRecord:
    """The run ``task_id`` names, when ``principal`` may read it, ``threads`` (the request's, narrowed by custom
    auth) shows its context, and it is a run of ``registered``; else ``TaskNotFound``, the same for an unknown
    task, another subject's and one of a context the filter hides."""
    try:
        found = await runs.get(task_id, principal)
    except RunNotFound:
        raise TaskNotFound(f"There is no task {task_id}.") from None
    if await threads.hides(found.record.snapshot.session_id):
        raise TaskNotFound(f"There is no task {task_id}.")
    graph = found.record.graph
    if graph is None or graph.graph_id != registered.graph_id:
        raise TaskNotFound(f"There is no task {task_id} of agent {registered.graph_id!r}.")
    return found


async def task_so_far(
    runs: RunRegistry, registered: RegisteredGraph, found: Run | RunRecord, *, upto: int | None = None
) -> TaskProjection:
    """The task of ``found`` as its committed events (those up to ``upto``, when given) make it: the client's
    messages first, each answer to an interrupt after the events up to the pause it answered."""
    run_id = found.run_id
    context_id = found.record.snapshot.session_id
    held = await runs.streams.committed(run_id)
    said = await client_messages(runs.agent.stores.checkpointer, context_id, run_id, chat=takes_messages(registered))
    shown = held if upto is None else [event for event in held if event.seq <= upto]
    projection = TaskProjection(
        task_id=run_id, context_id=context_id, roles=registered.node_roles, history=said.started
    )
    answers = iter(said.answers)
    segment: list[StoredEvent] = []
    for event in shown:
        if segment and segment[-1].type == _PAUSED and (answer := next(answers, None)) is not None:
            project_events(projection, segment, more=True)
            projection.answered(answer)
            segment = []
        segment.append(event)
    project_events(projection, segment, more=len(shown) < len(held))
    return projection
