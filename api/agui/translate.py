"""A run's envelopes in, AG-UI 1.0 events out: one AG-UI run's worth of a run of any graph, pure and stateful.

An AG-UI run is one request's stream. A run that pauses for a human is two AG-UI runs: the one that ends with the
interrupt outcome, and the one that answers it (``resume``), which continues the same run from the seq after
the pause. ``AgUiTranslator`` maps the shared projection (``api.projection``: steps, text messages, tool calls,
state snapshots, data, the approval, one end) to AG-UI's events; the projection opens the run before the first
and closes what it opened before the ``RUN_FINISHED`` that ends it. docs/ag-ui.md has the whole mapping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    CustomEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from api import projection
from contracts.agui import AgUiDecision

if TYPE_CHECKING:
    from collections.abc import Mapping

    from api.projection import UiEvent
    from contracts import Envelope

__all__ = ("APPROVAL_REASON", "CUSTOM_PREFIX", "AgUiTranslator", "interrupt_id")

CUSTOM_PREFIX = "harness."
"""CUSTOM event names are the contract's event types under this namespace, e.g. ``harness.graph_topology``; a
graph's own ``custom`` writes are ``harness.custom``."""
APPROVAL_REASON = "human_approval"
_DECISION_SCHEMA: dict[str, Any] = msgspec.json.schema_components([AgUiDecision])[1]["AgUiDecision"]


def _closing(event: UiEvent) -> bool:
    return isinstance(event, projection.TextEnded | projection.ToolCallEnded) or (
        isinstance(event, projection.StepFinished) and event.details is None
    )


def interrupt_id(run_id: str, approval_id: str) -> str:
    """The id of the interrupt a paused run raises; a resume entry names it to decide the approval."""
    return f"{run_id}:{approval_id}"


class AgUiTranslator:
    def __init__(self, *, thread_id: str, run_id: str, roles: Mapping[str, str] | None = None) -> None:
        """``run_id``: the AG-UI run's id (the client's ``runId``, not the harness run's); ``roles``: the graph's
        node roles (``RegisteredGraph.node_roles``)."""
        self.thread_id = thread_id
        self.run_id = run_id
        self._projection = projection.RunProjection(roles=roles)
        self._usage: list[TokenUsage] | None = None

    @property
    def finished(self) -> bool:
        """True once the event that ends the AG-UI run (``RUN_FINISHED`` or ``RUN_ERROR``) is out."""
        return self._projection.ended

    def translate(self, envelope: Envelope) -> list[BaseEvent]:
        """The AG-UI events that ``envelope``, the next event of the harness run, becomes."""
        out: list[BaseEvent] = []
        interrupted: RunFinishedEvent | None = None
        events = self._projection.project(envelope)
        if events and isinstance(events[-1], projection.Failed):
            events = [event for event in events if not _closing(event)]  # RUN_ERROR ends what is open with the run
        for event in events:
            if isinstance(event, projection.ApprovalRequested):
                interrupted = self._interrupted(event)  # after the steps the projection closes with it
            else:
                out += self._map(event)
        if interrupted is not None:
            out.append(interrupted)
        return out

    def _map(self, event: UiEvent) -> list[BaseEvent]:
        at = event.at
        match event:
            case projection.RunOpened(run_id=harness_run):
                return [
                    RunStartedEvent(
                        thread_id=self.thread_id,
                        run_id=self.run_id,
                        protocol_version=PROTOCOL_VERSION,
                        timestamp=at,
                        metadata={"harness_run_id": harness_run},
                    )
                ]
            case projection.StepStarted(name=name):
                return [StepStartedEvent(step_name=name, timestamp=at)]
            case projection.StepFinished(name=name, step=step, details=details):
                metadata = None if details is None else {"step": step, **details}
                return [StepFinishedEvent(step_name=name, timestamp=at, metadata=metadata)]
            case projection.TextStarted(message_id=message_id):
                return [TextMessageStartEvent(message_id=message_id, role="assistant", timestamp=at)]
            case projection.TextDelta(message_id=message_id, delta=delta):
                return [TextMessageContentEvent(message_id=message_id, delta=delta, timestamp=at)]
            case projection.TextEnded(message_id=message_id):
                return [TextMessageEndEvent(message_id=message_id, timestamp=at)]
            case projection.ToolCallStarted(tool_call_id=call_id, name=name, message_id=message_id):
                return [
                    ToolCallStartEvent(
                        tool_call_id=call_id, tool_call_name=name, parent_message_id=message_id, timestamp=at
                    )
                ]
            case projection.ToolCallArgs(tool_call_id=call_id, delta=delta):
                return [ToolCallArgsEvent(tool_call_id=call_id, delta=delta, timestamp=at)]
            case projection.ToolCallEnded(tool_call_id=call_id):
                return [ToolCallEndEvent(tool_call_id=call_id, timestamp=at)]
            case projection.ToolResult(tool_call_id=call_id, message_id=message_id, content=content):
                return [
                    ToolCallResultEvent(
                        message_id=message_id, tool_call_id=call_id, content=content, role="tool", timestamp=at
                    )
                ]
            case projection.StateSnapshot(values=values):
                return [StateSnapshotEvent(snapshot=values, timestamp=at)]
            case projection.Data(name=name, value=value):
                return [CustomEvent(name=CUSTOM_PREFIX + name, value=value, timestamp=at)]
            case projection.Usage():
                self._usage = [
                    TokenUsage(
                        model=event.model,
                        input_tokens=event.input_tokens,
                        output_tokens=event.output_tokens,
                        total_tokens=event.input_tokens + event.output_tokens,
                    )
                ]
                return []
            case projection.Finished(result=result, human_wait_ms=waited):
                metadata = None if waited is None else {"human_wait_ms": waited}
                return [self._finished(at, RunFinishedSuccessOutcome(), result=result, metadata=metadata)]
            case projection.Cancelled():
                return [self._finished(at, RunFinishedCancelledOutcome())]
            case projection.Failed(code=code, message=message):
                return [RunErrorEvent(message=message, code=code, timestamp=at, usage=self._usage)]
            case _:
                return []  # an approval's answer and the action's result: the run's own events say them

    def _interrupted(self, event: projection.ApprovalRequested) -> RunFinishedEvent:
        approval = event.approval
        metadata: dict[str, Any] = {
            "action": approval.action,
            "summary": approval.summary,
            "approval_id": approval.approval_id,
            "harness_run_id": event.run_id,
        }
        if event.value is not None:
            metadata["value"] = event.value
        interrupt = Interrupt(
            id=interrupt_id(event.run_id, approval.approval_id),
            reason=APPROVAL_REASON,
            message=approval.summary,
            tool_call_id=event.tool_call_id,
            response_schema=_DECISION_SCHEMA,
            metadata=metadata,
        )
        return self._finished(event.at, RunFinishedInterruptOutcome(interrupts=[interrupt]))

    def _finished(
        self,
        at: int,
        outcome: RunFinishedSuccessOutcome | RunFinishedInterruptOutcome | RunFinishedCancelledOutcome,
        *,
        result: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> RunFinishedEvent:
        return RunFinishedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            outcome=outcome,
            result=result,
            usage=self._usage,
            metadata=metadata,
            timestamp=at,
        )
