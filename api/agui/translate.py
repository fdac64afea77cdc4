"""Contract envelopes in, AG-UI 1.0 events out: one AG-UI run's worth of a harness run, pure and stateful.

An AG-UI run is one request's stream. A harness run that pauses for a human is two AG-UI runs: the one
that ends with the interrupt outcome, and the one that answers it (``resume``), which continues the same
harness run from the seq after the pause. ``AgUiTranslator`` is fed that stream's envelopes in order and
answers the AG-UI events each one becomes, opening the run before the first and closing what it opened
(steps, the text message) before the ``RUN_FINISHED`` that ends it. docs/ag-ui.md has the whole mapping.
"""

from __future__ import annotations

from datetime import datetime
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
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
)

from contracts import (
    CostUpdatedEvent,
    ErrorEvent,
    GraphTopologyEvent,
    InteractionLoggedEvent,
    NodeCompletedEvent,
    NodeStartedEvent,
    PausedEvent,
    SnapshotEvent,
    TokenDeltaEvent,
    TurnCompletedEvent,
)
from contracts.agui import AgUiDecision

if TYPE_CHECKING:
    from contracts import Envelope, NodeCompleted, PendingApproval

__all__ = ("APPROVAL_REASON", "CUSTOM_PREFIX", "AgUiTranslator", "interrupt_id")

CUSTOM_PREFIX = "harness."
"""CUSTOM event names are the contract's event types under this namespace, e.g. ``harness.graph_topology``."""
APPROVAL_REASON = "human_approval"
_DECISION_SCHEMA: dict[str, Any] = msgspec.json.schema_components([AgUiDecision])[1]["AgUiDecision"]


def interrupt_id(run_id: str, approval_id: str) -> str:
    """The id of the interrupt a paused run raises; a resume entry names it to decide the approval."""
    return f"{run_id}:{approval_id}"


class AgUiTranslator:
    def __init__(self, *, thread_id: str, run_id: str) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        """The AG-UI run's id: the client's ``runId``, not the harness run's."""
        self.finished = False
        """True once the event that ends the AG-UI run (``RUN_FINISHED`` or ``RUN_ERROR``) is out."""
        self._started = False
        self._steps: list[str] = []
        self._message_id: str | None = None
        self._streamed: list[str] = []
        self._usage: list[TokenUsage] | None = None

    def translate(self, envelope: Envelope) -> list[BaseEvent]:
        """The AG-UI events that ``envelope``, the next event of the harness run, becomes."""
        if self.finished:
            return []
        at = _milliseconds(envelope.at)
        out: list[BaseEvent] = []
        if not self._started:
            self._started = True
            out.append(
                RunStartedEvent(
                    thread_id=self.thread_id,
                    run_id=self.run_id,
                    protocol_version=PROTOCOL_VERSION,
                    timestamp=at,
                    metadata={"harness_run_id": envelope.run_id},
                )
            )
        match envelope:
            case NodeStartedEvent(data=data):
                if data.node in self._steps:
                    out += self._finish_step(data.node, at)
                self._steps.append(data.node)
                out.append(StepStartedEvent(step_name=data.node, timestamp=at))
            case NodeCompletedEvent(data=data):
                out += self._end_message(at)
                out += self._finish_step(data.node, at, _details(data))
            case TokenDeltaEvent(data=data) if data.text:
                out += self._stream_text(envelope, data.text, at)
            case CostUpdatedEvent(data=data):
                self._usage = [
                    TokenUsage(
                        model=data.model,
                        input_tokens=data.input_tokens,
                        output_tokens=data.output_tokens,
                        total_tokens=data.input_tokens + data.output_tokens,
                    )
                ]
                out.append(_custom(envelope, at))
            case PausedEvent(data=data):
                out += self._close(at)
                out.append(
                    self._finished(at, RunFinishedInterruptOutcome(interrupts=[_interrupt(envelope, data.approval)]))
                )
            case TurnCompletedEvent(data=data):
                answer = data.response.answer.text
                if answer and answer != "".join(self._streamed):
                    # not streamed in this AG-UI run (a refusal, an action's result), or replaced (a blocked answer)
                    out += self._end_message(at)
                    out += self._stream_text(envelope, answer, at)
                out += self._close(at)
                waited = None if envelope.human_wait_ms is None else {"human_wait_ms": envelope.human_wait_ms}
                result = msgspec.to_builtins(data.response)
                out.append(self._finished(at, RunFinishedSuccessOutcome(), result=result, metadata=waited))
            case ErrorEvent() if envelope.status == "cancelled":
                out += self._close(at)
                out.append(self._finished(at, RunFinishedCancelledOutcome()))
            case ErrorEvent(data=data):
                self.finished = True
                out.append(RunErrorEvent(message=data.message, code=data.code, timestamp=at, usage=self._usage))
            case GraphTopologyEvent() | InteractionLoggedEvent() | SnapshotEvent():
                out.append(_custom(envelope, at))
            case _:
                pass  # an intermediate token_delta with no visible text
        return out

    def _stream_text(self, envelope: Envelope, text: str, at: int) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        if self._message_id is None:
            self._message_id = f"{envelope.run_id}-{envelope.seq}"
            out.append(TextMessageStartEvent(message_id=self._message_id, role="assistant", timestamp=at))
        self._streamed.append(text)
        out.append(TextMessageContentEvent(message_id=self._message_id, delta=text, timestamp=at))
        return out

    def _end_message(self, at: int) -> list[BaseEvent]:
        if self._message_id is None:
            return []
        message_id, self._message_id = self._message_id, None
        return [TextMessageEndEvent(message_id=message_id, timestamp=at)]

    def _finish_step(self, node: str, at: int, details: dict[str, Any] | None = None) -> list[BaseEvent]:
        if node not in self._steps:
            return []
        self._steps.remove(node)
        return [StepFinishedEvent(step_name=node, timestamp=at, metadata=details)]

    def _close(self, at: int) -> list[BaseEvent]:
        """End the text message and every open step (newest first): a run closes what it opened."""
        out = self._end_message(at)
        for node in reversed(list(self._steps)):
            out += self._finish_step(node, at)
        return out

    def _finished(
        self,
        at: int,
        outcome: RunFinishedSuccessOutcome | RunFinishedInterruptOutcome | RunFinishedCancelledOutcome,
        *,
        result: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> RunFinishedEvent:
        self.finished = True
        return RunFinishedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            outcome=outcome,
            result=result,
            usage=self._usage,
            metadata=metadata,
            timestamp=at,
        )


def _interrupt(envelope: Envelope, approval: PendingApproval) -> Interrupt:
    return Interrupt(
        id=interrupt_id(envelope.run_id, approval.approval_id),
        reason=APPROVAL_REASON,
        message=approval.summary,
        response_schema=_DECISION_SCHEMA,
        metadata={
            "action": approval.action,
            "summary": approval.summary,
            "approval_id": approval.approval_id,
            "harness_run_id": envelope.run_id,
        },
    )


def _custom(envelope: Envelope, at: int) -> CustomEvent:
    kind = str(envelope.__struct_config__.tag)
    return CustomEvent(name=CUSTOM_PREFIX + kind, value=msgspec.to_builtins(envelope.data), timestamp=at)


def _details(data: NodeCompleted) -> dict[str, Any]:
    return {"step": data.step, "latency_ms": data.latency_ms, "outcome": data.outcome, "summary": data.summary}


def _milliseconds(at: str) -> int:
    """An envelope's ``at`` (RFC 3339, UTC) as AG-UI's ``timestamp``: milliseconds since the Unix epoch."""
    return int(datetime.fromisoformat(at).timestamp() * 1000)
