"""A run's envelopes in, A2A 1.0 task events out, and the ``Task`` they add up to: pure and stateful.

A task is a run (its id the run's), in a context that is the run's thread. ``TaskProjection`` maps the shared
projection (``api.projection``) and nothing else:

- the run's first event makes the task ``TASK_STATE_WORKING``; each step (a node starting or finishing, the
  approval's answer, the action's result) is a ``statusUpdate`` still working, the step in its ``metadata``;
- a chat model's chunks are ``statusUpdate``s whose message, named by the model message's id, carries their text
  as a text part: the chunks of one message that come together (committed in one window, projected with
  ``hold_text``) one event, their text joined, its seq the last chunk's; a model's tool call and its result are
  data parts (``toolCall``, ``toolResult``); together they are the task's ``history``;
- custom writes (and the service's side events: topology, cost) are data parts, named in the part's metadata;
- an ``interrupt()`` is ``TASK_STATE_INPUT_REQUIRED``, its message the approval's summary and the interrupt's
  value as a data part (the approval's id and action in its metadata);
- the end: the output as an ``artifactUpdate`` (the final answer's text, and the final state as a data part),
  then ``TASK_STATE_COMPLETED`` (``REJECTED`` for a turn the support agent refused), or ``FAILED``, ``CANCELED``.

Every event carries ``metadata.seq``, the seq of the run's event it was made from, as the task does (the last
seq it has seen): what a client compares across a cut and a ``SubscribeToTask``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from api.a2a.types import (
    CANCELED,
    COMPLETED,
    FAILED,
    INPUT_REQUIRED,
    REJECTED,
    SETTLED_STATES,
    SUBMITTED,
    WORKING,
    Artifact,
    Message,
    Part,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from api.projection import (
    ActionResult,
    ApprovalAnswered,
    ApprovalRequested,
    Cancelled,
    Data,
    Failed,
    Finished,
    RunOpened,
    RunProjection,
    StepFinished,
    StepStarted,
    TextDelta,
    ToolCallEnded,
    ToolResult,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from api.projection import TextChunk, UiEvent
    from contracts import Envelope

__all__ = ("AGENT", "OUTPUT_ARTIFACT", "TaskProjection")

AGENT = "ROLE_AGENT"
OUTPUT_ARTIFACT = "output"
"""The artifact a finished task's output is: its answer's text, and its final state as data."""
_FINAL_STATES = {"refused": REJECTED}
"""The support agent's ends that are not ``completed`` (a refused turn); every other end is."""


class TaskProjection:
    def __init__(
        self,
        *,
        task_id: str,
        context_id: str,
        roles: Mapping[str, str] | None = None,
        state: TaskState = SUBMITTED,
        history: list[Message] | None = None,
    ) -> None:
        """``state``: where the task stands before the events this sees (``INPUT_REQUIRED`` for a response that
        answers it); ``history``: the messages it holds already (the client's message that started it)."""
        self.task_id = task_id
        self.context_id = context_id
        self._projection = RunProjection(roles=roles)
        self.state: TaskState = state
        self._status_message: Message | None = None
        self._timestamp: str | None = None
        self._roles = roles
        self._history: dict[str, Message | list[str | Part]] = {
            message.message_id: message for message in history or ()
        }
        """The messages by id, in order: the client's as they came, the agent's as its text chunks and data parts."""
        self._artifacts: list[Artifact] = []
        self._held: _HeldText | None = None
        self.seq = 0
        """The seq of the last event of the run seen."""

    @property
    def settled(self) -> bool:
        """The task ended, or waits for its client: what a blocking ``SendMessage`` and a stream end at."""
        return self.state in SETTLED_STATES and self._projection.ended

    def project(self, envelope: Envelope, *, more: bool = False, hold_text: bool = False) -> list[StreamResponse]:
        """The stream events ``envelope``, the run's next event, becomes. ``more``: events after it are known
        already (a replay), so an interrupt among them does not settle the task. ``hold_text``: its text is held
        (``release_text``), to go out in one event with the text of the envelopes after it."""
        self.seq = envelope.seq
        out: list[StreamResponse] = []
        interrupted: ApprovalRequested | None = None
        for event in self._projection.project(envelope, more=more):
            if isinstance(event, TextDelta):
                out += self._hold(event)
            elif isinstance(event, ApprovalRequested):
                interrupted = event  # after the steps the projection closes with it: the state it leaves
            else:
                out += self.release_text()
                out += self._map(event)
        if interrupted is not None:
            out += self.release_text()
            out += self._map(interrupted)
        if not hold_text:
            out += self.release_text()
        return out

    def project_text(self, chunk: TextChunk) -> list[StreamResponse] | None:
        """As ``project(..., hold_text=True)`` for the envelope of ``chunk`` when it continues the message being
        said (the shared projection's ``text_delta``); None when it does not: ``project`` its envelope."""
        delta = self._projection.text_delta(chunk)
        if delta is None:
            return None
        self.seq = chunk.seq
        return self._hold(delta)

    def release_text(self) -> list[StreamResponse]:
        """The text held since the last release, as one event: a piece of the agent's message, its seq the last
        chunk's."""
        held = self._held
        if held is None:
            return []
        self._held = None
        message = Message(message_id=held.message_id, role=AGENT, parts=[Part(text="".join(held.pieces))])
        return [self._update(WORKING, _timestamp(held.at), message, None, seq=held.seq)]

    def _hold(self, delta: TextDelta) -> list[StreamResponse]:
        self._said(delta.message_id, delta.delta)
        held = self._held
        if held is not None and held.message_id == delta.message_id:
            held.pieces.append(delta.delta)
            held.seq, held.at = self.seq, delta.at
            return []
        released = self.release_text()
        self._held = _HeldText(delta.message_id, [delta.delta], self.seq, delta.at)
        return released

    def task(self, *, history_length: int | None = None) -> Task:
        """The task as the events so far make it (its ``history_length`` newest messages, all when None)."""
        history = [
            said if isinstance(said, Message) else self._message(message_id, said)
            for message_id, said in self._history.items()
        ]
        if history_length is not None:
            history = history[len(history) - history_length :] if history_length > 0 else []
        return Task(
            id=self.task_id,
            context_id=self.context_id,
            status=self._status(),
            artifacts=list(self._artifacts),
            history=history,
            metadata={"seq": self.seq},
        )

    def answered(self, message: Message) -> None:
        """The client answered the interrupt the task waits at with ``message``: the events after are its run
        resumed, one response more."""
        self._history[message.message_id] = message
        self._projection = RunProjection(roles=self._roles)

    # --- the mapping ---

    def _map(self, event: UiEvent) -> list[StreamResponse]:
        at = _timestamp(event.at)
        match event:
            case RunOpened():
                return self._working(at, {"type": "run_started"}) if self.state != WORKING else []
            case StepStarted(name=name, step=step):
                return self._working(at, {"type": "step_started", "node": name, "step": step})
            case StepFinished(name=name, step=step, details=details):
                return self._working(at, {"type": "step_finished", "node": name, "step": step, **(details or {})})
            case ToolCallEnded(tool_call_id=call_id, name=name, args=args):
                part = Part(data={"toolCall": {"id": call_id, "name": name, "args": args}})
                self._said(call_id, part)
                return self._said_now(at, call_id, part)
            case ToolResult(tool_call_id=call_id, message_id=message_id, content=content):
                part = Part(data={"toolResult": {"toolCallId": call_id, "content": content}})
                self._said(message_id, part)
                return self._said_now(at, message_id, part)
            case Data(name=name, value=value):
                part = Part(data=value, metadata={"name": name})
                return self._said_now(at, f"{self.task_id}-{self.seq}-{name}", part)
            case ApprovalAnswered(approved=approved):
                return self._working(at, {"type": "approval_answered", "approved": approved})
            case ActionResult(outcome=outcome, summary=summary):
                return self._working(at, {"type": "action_result", "outcome": outcome, "summary": summary})
            case ApprovalRequested():
                return self._input_required(at, event)
            case Finished(result=result, status=status, answer=answer):
                return self._finished(at, result, status, answer)
            case Failed(code=code, message=message, retryable=retryable):
                said = self._agent_message(f"{self.task_id}-failed", [Part(text=message)])
                return [self._update(FAILED, at, said, {"code": code, "retryable": retryable})]
            case Cancelled(code=code, message=message):
                said = self._agent_message(f"{self.task_id}-canceled", [Part(text=message)])
                return [self._update(CANCELED, at, said, {"code": code})]
            case _:
                return []  # text starts and ends, tool call chunks, usage: the events above carry them whole

    def _working(self, at: str, step: dict[str, Any]) -> list[StreamResponse]:
        return [self._update(WORKING, at, None, step)]

    def _said(self, message_id: str, piece: str | Part) -> None:
        pieces = self._history.setdefault(message_id, [])
        if isinstance(pieces, list):
            pieces.append(piece)

    def _said_now(self, at: str, message_id: str, part: Part) -> list[StreamResponse]:
        """A piece of an agent's message as it comes: its task and context are the event's (a client's parse of
        every streamed chunk costs less for each field it does not repeat)."""
        return [self._update(WORKING, at, Message(message_id=message_id, role=AGENT, parts=[part]), None)]

    def _input_required(self, at: str, event: ApprovalRequested) -> list[StreamResponse]:
        approval = event.approval
        value = event.value if event.value is not None else {"action": approval.action, "summary": approval.summary}
        said = self._agent_message(
            f"{self.task_id}-{approval.approval_id}",
            [Part(text=approval.summary), Part(data=value)],
            metadata={
                "approvalId": approval.approval_id,
                "action": approval.action,
                **({"toolCallId": event.tool_call_id} if event.tool_call_id else {}),
            },
        )
        return [self._update(INPUT_REQUIRED, at, said, {"type": "interrupted"})]

    def _finished(self, at: str, result: Any, status: str, answer: str | None) -> list[StreamResponse]:
        parts = []
        text = answer if answer is not None else _last_answer(result)
        if text:
            parts.append(Part(text=text))
        parts.append(Part(data=result))
        artifact = Artifact(artifact_id=OUTPUT_ARTIFACT, name=OUTPUT_ARTIFACT, parts=parts)
        self._artifacts = [artifact]
        update = TaskArtifactUpdateEvent(
            task_id=self.task_id,
            context_id=self.context_id,
            artifact=artifact,
            last_chunk=True,
            metadata={"seq": self.seq},
        )
        return [StreamResponse(artifact_update=update), self._update(_FINAL_STATES.get(status, COMPLETED), at, None)]

    # --- building ---

    def _update(
        self,
        state: TaskState,
        at: str,
        message: Message | None,
        step: dict[str, Any] | None = None,
        *,
        seq: int | None = None,
    ) -> StreamResponse:
        self.state, self._timestamp = state, at
        self._status_message = message if state != WORKING else None
        metadata: dict[str, Any] = {"seq": self.seq if seq is None else seq}
        if step is not None:
            metadata["step"] = step
        status = TaskStatus(state=state, message=message, timestamp=at)
        return StreamResponse(
            status_update=TaskStatusUpdateEvent(
                task_id=self.task_id, context_id=self.context_id, status=status, metadata=metadata
            )
        )

    def _status(self) -> TaskStatus:
        return TaskStatus(state=self.state, message=self._status_message, timestamp=self._timestamp)

    def _agent_message(self, message_id: str, parts: list[Part], metadata: dict[str, Any] | None = None) -> Message:
        return Message(
            message_id=message_id,
            context_id=self.context_id,
            task_id=self.task_id,
            role=AGENT,
            parts=parts,
            metadata=metadata,
        )

    def _message(self, message_id: str, pieces: list[str | Part]) -> Message:
        """A message of the history: its text chunks joined into one text part between its data parts."""
        parts: list[Part] = []
        texts: list[str] = []
        for piece in pieces:
            if isinstance(piece, str):
                texts.append(piece)
                continue
            if texts:
                parts.append(Part(text="".join(texts)))
                texts = []
            parts.append(piece)
        if texts:
            parts.append(Part(text="".join(texts)))
        return self._agent_message(message_id, parts)


class _HeldText:
    """The text of the agent's message said since the last event that went out, the seq and time of its last."""

    __slots__ = ("at", "message_id", "pieces", "seq")

    def __init__(self, message_id: str, pieces: list[str], seq: int, at: int) -> None:
        self.message_id = message_id
        self.pieces = pieces
        self.seq = seq
        self.at = at


def _last_answer(result: Any) -> str | None:
    """The text of a graph's last AI message in its final state, when it keeps a conversation."""
    messages = result.get("messages") if isinstance(result, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    if not isinstance(last, dict) or last.get("type") not in ("ai", "AIMessage", "AIMessageChunk"):
        return None
    content = last.get("content")
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        text = "".join(str(block.get("text") or "") for block in content if isinstance(block, dict))
        return text or None
    return None


@lru_cache(maxsize=1)
def _timestamp(ms: int) -> str:
    """RFC 3339 of the event's millisecond: made once for the run of chunks that share it."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
