"""A run's envelopes as what a chat UI shows: one projection for every graph, that AG-UI and the AI SDK map from.

``RunProjection`` is fed one response's worth of a run's envelopes, in order, and answers the ``UiEvent``s each
becomes. It opens the run before the first, and closes what it opened (the text message, tool calls, steps)
before the event that ends the response: the run's end, or a pause for a person.

- Steps are the graph's node starts and ends (a subgraph's nodes by their path, ``step:search``).
- Text is the support agent's ``token_delta`` text, or a chat model's chunks (``graph_part`` ``messages``): one
  text message per model message, named by the message's own id, so a client that sends the conversation back
  sends ids the thread already holds. A model's tool calls (``tool_call_chunks``, or a whole message's
  ``tool_calls``) are tool calls, a ``ToolMessage`` their result.
- ``values`` of the root graph are state snapshots; ``custom`` writes and the contract's own side events
  (topology, cost, the interaction log, a replay's gap) are ``Data``.
- A pause asks for an approval (the interrupt's value names the action, its ``args`` and a summary), inside the
  step of the node that asked (it stays open until the pause closes the response). Its answer and
  the action's result are read from the graph's roles when it declares them (a node's ``role`` metadata: the
  support agent's ``human_approval`` is ``approval``, ``execute_action`` is ``action``), else from the node that
  was interrupted, which runs again first when the run is resumed: its completion is the action's result.
- The end is ``Finished`` (the support agent's ``ChatResponse``, or a graph's final state), ``Failed`` or
  ``Cancelled``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from api.projection import _events as ui
from contracts import (
    CostUpdatedEvent,
    ErrorEvent,
    GraphPartEvent,
    GraphTopologyEvent,
    InteractionLoggedEvent,
    NodeCompletedEvent,
    NodeStartedEvent,
    PausedEvent,
    RunCompletedEvent,
    SnapshotEvent,
    TokenDeltaEvent,
    TurnCompletedEvent,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from api.projection._chunks import TextChunk
    from contracts import Envelope, GraphPart, NodeCompleted, Paused

__all__ = ("ACTION_ROLE", "APPROVAL_ROLE", "RunProjection")

APPROVAL_ROLE = "approval"
"""A node that asks a person (``role`` metadata): its completion says whether they approved."""
ACTION_ROLE = "action"
"""A node that carries out what a person approved: its completion is the action's result."""
_DECIDED = {"approved": True, "rejected": False}
_AI = frozenset({"ai", "AIMessageChunk"})
_TOOL = frozenset({"tool", "ToolMessageChunk"})
_INTERRUPT = "__interrupt__"
_to_builtins = msgspec.to_builtins


class _ToolCall:
    __slots__ = ("args", "id", "name")

    def __init__(self, tool_call_id: str, name: str) -> None:
        self.id = tool_call_id
        self.name = name
        self.args: list[str] = []


class RunProjection:
    def __init__(self, *, roles: Mapping[str, str] | None = None, decision: bool | None = None) -> None:
        """``roles``: the graph's nodes that declare one (``node -> role``). ``decision``: this response answers
        the run's pause, and the person approved (True) or rejected (False) it."""
        self.ended = False
        """True once the event that ends the response is out."""
        self._roles = dict(roles or {})
        self._decision = decision
        self._opened = False
        self._steps: list[tuple[str, int]] = []
        self._text_id: str | None = None
        self.streamed: list[str] = []
        """The text streamed in this response so far."""
        self._calls: dict[tuple[str, int], _ToolCall] = {}
        self._called: dict[str, str] = {}
        """The latest call of each tool, by name: the one a pause for its action interrupted."""
        self._interrupted: str | None = None
        """The node whose interrupt the run waits at (or waited at, in this response)."""

    def project(self, envelope: Envelope, *, more: bool = False) -> list[ui.UiEvent]:
        """The UI events ``envelope``, the run's next event, becomes. ``more``: events after it are known already (a
        replay), so a pause among them ends nothing."""
        if self.ended:
            return []
        at = _milliseconds(envelope.at)
        out: list[ui.UiEvent] = []
        if not self._opened:
            self._opened = True
            out.append(ui.RunOpened(at=at, run_id=envelope.run_id))
        match envelope:
            case TokenDeltaEvent(data=data):
                if data.text:  # the support agent's answer: one message from its first token on
                    self._text(out, self._text_id or f"{envelope.run_id}-{envelope.seq}", data.text, at)
            case GraphPartEvent(data=part):
                self._part(out, envelope, part, at)
            case NodeStartedEvent(data=data):
                if self._decision is not None and self._interrupted is None and not self._roles:
                    self._interrupted = data.node  # a resumed run runs the interrupted node first, with the answer
                    out.append(ui.ApprovalAnswered(at=at, approved=self._decision))
                    self._decision = None
                self._finish_step(out, data.node, at)
                self._steps.append((data.node, data.step))
                out.append(ui.StepStarted(at=at, name=data.node, step=data.step))
            case NodeCompletedEvent(data=data):
                self._end_message(out, at)
                self._completed(out, data, at)
                if data.outcome != "interrupted":  # an interrupted step stays open until the pause closes it
                    details = {"latency_ms": data.latency_ms, "outcome": data.outcome, "summary": data.summary}
                    self._finish_step(out, data.node, at, details)
            case CostUpdatedEvent(data=data):
                usage = ui.Usage(
                    at=at,
                    model=data.model,
                    input_tokens=data.input_tokens,
                    output_tokens=data.output_tokens,
                    cost_usd=data.cost_usd,
                )
                out += [usage, ui.Data(at=at, name="cost_updated", value=_to_builtins(data))]
            case GraphTopologyEvent() | InteractionLoggedEvent() | SnapshotEvent():
                out.append(ui.Data(at=at, name=str(envelope.__struct_config__.tag), value=_to_builtins(envelope.data)))
            case PausedEvent(data=data):
                self._end_message(out, at)
                out.append(self._approval(envelope.run_id, data, at, ends=not more))
                if not more:
                    self._end(out, at, None)
            case TurnCompletedEvent() | RunCompletedEvent() | ErrorEvent():
                self._ended(out, envelope, at)
            case _:
                pass
        return out

    def text_delta(self, chunk: TextChunk) -> ui.TextDelta | None:
        """``chunk``'s one UI event when it continues the text message being streamed (what ``project`` makes of
        its envelope, without decoding it whole); None when it does more (opens a message, follows tool calls):
        ``project`` its envelope."""
        if self.ended or self._calls or self._text_id != chunk.message_id:
            return None
        self.streamed.append(chunk.text)
        return ui.TextDelta(at=_milliseconds(chunk.at), message_id=chunk.message_id, delta=chunk.text)

    def _part(self, out: list[ui.UiEvent], envelope: Envelope, part: GraphPart, at: int) -> None:
        if part.mode == "messages":
            self._message(out, envelope, part.data, at)
        elif part.mode == "values" and not part.ns:
            values = part.data
            if isinstance(values, dict) and _INTERRUPT in values:
                values = {key: value for key, value in values.items() if key != _INTERRUPT}
            out.append(ui.StateSnapshot(at=at, values=values))
        elif part.mode == "custom":
            out.append(ui.Data(at=at, name="custom", value=part.data))

    def _ended(self, out: list[ui.UiEvent], envelope: Envelope, at: int) -> None:
        """The run's terminal event: what it says, after everything the response opened is closed."""
        if isinstance(envelope, TurnCompletedEvent):
            response = envelope.data.response
            answer = response.answer.text
            if answer and answer != "".join(self.streamed):
                # not streamed in this response (a refusal, an action's result), or replaced (a blocked answer)
                self._end_message(out, at)
                self.streamed = []
                self._text(out, f"{envelope.run_id}-{envelope.seq}", answer, at)
            ending: ui.UiEvent = ui.Finished(
                at=at,
                result=_to_builtins(response),
                status=response.status,
                answer=answer,
                citations=response.citations,
                usage=_to_builtins(response.usage),
                human_wait_ms=envelope.human_wait_ms,
            )
        elif isinstance(envelope, RunCompletedEvent):
            ending = ui.Finished(at=at, result=envelope.data.output, status="completed")
        else:
            assert isinstance(envelope, ErrorEvent)
            error = envelope.data
            ending = (
                ui.Cancelled(at=at, code=error.code, message=error.message)
                if envelope.status == "cancelled"
                else ui.Failed(at=at, code=error.code, message=error.message, retryable=error.retryable)
            )
        self._end(out, at, ending)

    def _end(self, out: list[ui.UiEvent], at: int, ending: ui.UiEvent | None) -> None:
        self._close(out, at)
        self.ended = True
        if ending is not None:
            out.append(ending)

    # --- text and tool calls ---

    def _text(self, out: list[ui.UiEvent], message_id: str, text: str, at: int) -> None:
        if self._text_id != message_id:
            self._end_text(out, at)
            self._text_id = message_id
            out.append(ui.TextStarted(at=at, message_id=message_id))
        self.streamed.append(text)
        out.append(ui.TextDelta(at=at, message_id=message_id, delta=text))

    def _end_text(self, out: list[ui.UiEvent], at: int) -> None:
        if self._text_id is not None:
            out.append(ui.TextEnded(at=at, message_id=self._text_id))
            self._text_id = None

    def _end_message(self, out: list[ui.UiEvent], at: int) -> None:
        """End the text message and every tool call still being streamed."""
        self._end_text(out, at)
        for call in self._calls.values():
            out.append(ui.ToolCallEnded(at=at, tool_call_id=call.id, name=call.name, args=_parsed("".join(call.args))))
            self._called[call.name] = call.id
        self._calls.clear()

    def _message(self, out: list[ui.UiEvent], envelope: Envelope, data: Any, at: int) -> None:
        """One ``messages`` part: ``[message, metadata]``, a model's chunk or a message a node wrote."""
        message = data[0] if isinstance(data, list) and data else None
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        message_id = str(message.get("id") or f"{envelope.run_id}-{envelope.seq}")
        if kind in _TOOL:
            self._end_message(out, at)
            call_id = str(message.get("tool_call_id") or message_id)
            out.append(ui.ToolResult(at=at, tool_call_id=call_id, message_id=message_id, content=_text_of(message)))
            return
        if kind not in _AI:
            return
        if self._calls and next(iter(self._calls))[0] != message_id:
            self._end_message(out, at)  # another message began: the last one's calls are whole
        text = _text_of(message)
        if text:
            self._text(out, message_id, text, at)
        for index, chunk in enumerate(message.get("tool_call_chunks") or []):
            if isinstance(chunk, dict):
                self._call_chunk(out, message_id, chunk, index, at)
        if kind == "ai":  # a whole message: its calls, whole
            for index, call in enumerate(message.get("tool_calls") or []):
                if isinstance(call, dict):
                    args = msgspec.json.encode(call.get("args") or {}).decode()
                    self._call_chunk(out, message_id, {**call, "args": args, "index": index}, index, at)
        if kind == "ai" or message.get("chunk_position") == "last":
            self._end_message(out, at)

    def _call_chunk(
        self, out: list[ui.UiEvent], message_id: str, chunk: dict[str, Any], position: int, at: int
    ) -> None:
        index = chunk.get("index")
        key = (message_id, index if isinstance(index, int) else position)
        call = self._calls.get(key)
        if call is None:
            self._end_text(out, at)
            call = _ToolCall(str(chunk.get("id") or f"{message_id}-{key[1]}"), str(chunk.get("name") or "tool"))
            self._calls[key] = call
            out.append(ui.ToolCallStarted(at=at, tool_call_id=call.id, name=call.name, message_id=message_id))
        args = chunk.get("args")
        if isinstance(args, str) and args:
            call.args.append(args)
            out.append(ui.ToolCallArgs(at=at, tool_call_id=call.id, delta=args))

    # --- steps, approvals ---

    def _completed(self, out: list[ui.UiEvent], data: NodeCompleted, at: int) -> None:
        role = self._roles.get(data.node)
        if role == APPROVAL_ROLE and data.outcome in _DECIDED:
            out.append(ui.ApprovalAnswered(at=at, approved=_DECIDED[data.outcome]))
        elif role == ACTION_ROLE:
            out.append(ui.ActionResult(at=at, outcome=data.outcome, summary=data.summary))
        elif data.outcome == "interrupted":
            self._interrupted = data.node
        elif data.node == self._interrupted and APPROVAL_ROLE not in self._roles.values():
            # the interrupted node ran again with the person's answer: what it did is the action's result
            self._interrupted = None
            out.append(ui.ActionResult(at=at, outcome=data.outcome, summary=data.summary))

    def _approval(self, run_id: str, paused: Paused, at: int, *, ends: bool) -> ui.ApprovalRequested:
        value = paused.interrupts[0].value if paused.interrupts else None
        args = value.get("args") if isinstance(value, dict) else None
        approval = paused.approval
        return ui.ApprovalRequested(
            at=at,
            run_id=run_id,
            approval=approval,
            value=value,
            tool_input=args if isinstance(args, dict) else {"summary": approval.summary},
            tool_call_id=self._called.get(approval.action),
            ends=ends,
        )

    def _finish_step(self, out: list[ui.UiEvent], node: str, at: int, details: dict[str, Any] | None = None) -> None:
        for index in range(len(self._steps) - 1, -1, -1):
            name, step = self._steps[index]
            if name == node:
                del self._steps[index]
                out.append(ui.StepFinished(at=at, name=name, step=step, details=details))
                return

    def _close(self, out: list[ui.UiEvent], at: int) -> None:
        """End the text, the tool calls and every open step (newest first): a response closes what it opened."""
        self._end_message(out, at)
        while self._steps:
            name, step = self._steps.pop()
            out.append(ui.StepFinished(at=at, name=name, step=step))


def _text_of(message: dict[str, Any]) -> str:
    """A message's text: its content, or the text of its ``{type: text}`` blocks."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block if isinstance(block, str) else str(block.get("text") or "")
        for block in content
        if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
    )


def _parsed(args: str) -> Any:
    if not args:
        return {}
    try:
        return msgspec.json.decode(args)
    except msgspec.DecodeError:
        return {"arguments": args}


def _milliseconds(at: str) -> int:
    """An envelope's ``at`` (RFC 3339, UTC) in milliseconds since the Unix epoch."""
    return int(datetime.fromisoformat(at).timestamp() * 1000)
