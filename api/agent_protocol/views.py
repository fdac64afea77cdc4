"""The Agent Server's objects (assistants, threads, runs, thread states) as views of this service's own.

An assistant is a registered graph; a thread is a session (its checkpoints are the LangGraph thread of that
id); a run is a run of the registry, its status named the Agent Server's way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.graphs import SUPPORT_GRAPH_ID, assistant_id_of, to_json_safe
from api.agent_protocol.stream import status_name
from contracts.agent_protocol import (
    Assistant,
    GraphSchema,
    ThreadCheckpoint,
    ThreadInterrupt,
    ThreadRun,
    ThreadState,
    ThreadSummary,
    ThreadTask,
)

if TYPE_CHECKING:
    from langgraph.types import StateSnapshot

    from agent.graphs import RegisteredGraph
    from api.runs.log.records import RunRecord
    from api.runs.log.threads import ThreadRecord
    from contracts.agent_protocol import ThreadStatus

__all__ = (
    "SUPPORT_ASSISTANT_ID",
    "assistant_view",
    "empty_state",
    "run_view",
    "schema_view",
    "state_view",
    "thread_metadata",
    "thread_view",
)

_SYSTEM = {"created_by": "system"}
SUPPORT_ASSISTANT_ID = assistant_id_of(SUPPORT_GRAPH_ID)
"""The assistant a ``/chat`` turn's run belongs to."""


def assistant_view(registered: RegisteredGraph, registered_at: str) -> Assistant:
    return Assistant(
        assistant_id=registered.assistant_id,
        graph_id=registered.graph_id,
        config={},
        context={},
        created_at=registered_at,
        updated_at=registered_at,
        metadata=dict(_SYSTEM),
        version=1,
        name=registered.name,
        description=registered.description,
    )


def schema_view(registered: RegisteredGraph) -> GraphSchema:
    schemas = registered.schemas
    return GraphSchema(
        graph_id=registered.graph_id,
        input_schema=schemas.input_schema,
        output_schema=schemas.output_schema,
        state_schema=schemas.state_schema,
        config_schema=schemas.config_schema,
        context_schema=schemas.context_schema,
    )


def run_view(record: RunRecord, support_assistant_id: str) -> ThreadRun:
    snapshot, graph = record.snapshot, record.graph
    return ThreadRun(
        run_id=snapshot.run_id,
        thread_id=snapshot.session_id,
        assistant_id=graph.assistant_id if graph is not None else support_assistant_id,
        created_at=snapshot.started_at,
        updated_at=snapshot.updated_at,
        status=status_name(snapshot.status),  # type: ignore[arg-type]  # a RunStatus always has a name
        metadata=graph.metadata if graph is not None else {},
        multitask_strategy=graph.multitask_strategy if graph is not None else "reject",
        kwargs={"stream_mode": graph.modes, "subgraphs": graph.subgraphs} if graph is not None else {},
    )


def thread_view(
    thread: ThreadRecord, *, status: ThreadStatus, values: Any, interrupts: list[ThreadInterrupt]
) -> ThreadSummary:
    return ThreadSummary(
        thread_id=thread.thread_id,
        created_at=thread.created_at,
        updated_at=thread.updated_at,
        metadata=thread_metadata(thread),
        status=status,
        values=values,
        interrupts={"": interrupts} if interrupts else {},
    )


def thread_metadata(thread: ThreadRecord) -> dict[str, Any]:
    """The client's metadata and, as the Agent Server adds them, the thread's ``graph_id`` and ``assistant_id``:
    what the LangGraph UIs search threads by to list an assistant's."""
    graph_id = thread.graph_id or SUPPORT_GRAPH_ID
    return {"graph_id": graph_id, "assistant_id": assistant_id_of(graph_id), **thread.metadata}


def empty_state() -> ThreadState:
    """The state of a thread with no checkpoint yet (the SDKs' ``useStream`` reads ``checkpoint: null``)."""
    return ThreadState(
        values={},
        next=[],
        tasks=[],
        metadata=None,
        created_at=None,
        checkpoint=None,
        parent_checkpoint=None,
        interrupts=[],
        checkpoint_id=None,
        parent_checkpoint_id=None,
    )


def state_view(snapshot: StateSnapshot) -> ThreadState:
    """A LangGraph ``StateSnapshot`` as the Agent Server's ``ThreadState``: JSON-safe and redacted."""
    checkpoint = _checkpoint(snapshot.config)
    parent = _checkpoint(snapshot.parent_config)
    return ThreadState(
        values=to_json_safe(snapshot.values),
        next=list(snapshot.next),
        tasks=[
            ThreadTask(
                id=task.id,
                name=task.name,
                error=None if task.error is None else repr(task.error),
                interrupts=[_interrupt(interrupt) for interrupt in task.interrupts],
                checkpoint=_checkpoint(task.state) if isinstance(task.state, dict) else None,
                state=None,
                result=to_json_safe(task.result),
            )
            for task in snapshot.tasks
        ],
        metadata=to_json_safe(dict(snapshot.metadata or {})),
        created_at=snapshot.created_at,
        checkpoint=checkpoint,
        parent_checkpoint=parent,
        interrupts=[_interrupt(interrupt) for interrupt in snapshot.interrupts],
        checkpoint_id=checkpoint.checkpoint_id if checkpoint is not None else None,
        parent_checkpoint_id=parent.checkpoint_id if parent is not None else None,
    )


def _interrupt(interrupt: Any) -> ThreadInterrupt:
    return ThreadInterrupt(value=to_json_safe(interrupt.value), id=interrupt.id)


def _checkpoint(config: Any) -> ThreadCheckpoint | None:
    configurable = (config or {}).get("configurable", {})
    if not configurable.get("thread_id") or not configurable.get("checkpoint_id"):
        return None
    return ThreadCheckpoint(
        thread_id=configurable["thread_id"],
        checkpoint_ns=configurable.get("checkpoint_ns", ""),
        checkpoint_id=configurable["checkpoint_id"],
    )
