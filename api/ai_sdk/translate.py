"""Contract envelopes in, the AI SDK's UI message chunks out: one response's worth of a run, pure and stateful.

A run is one assistant message, whose id is the run's id. A POST answers the part of the run that request
caused: a new turn from its first event to its end or its pause; an approval from the event after the pause
to the end. ``GET /ai-sdk/chat/{id}/stream`` answers the whole run from its first event, a pause it went past
included, so a client that replays it (``resumeStream``) rebuilds the same message it would have had.
``UIMessageTranslator`` is fed those envelopes in order and answers the chunks each one becomes, opening the
message (``start``) before the first and closing what it opened (text, steps) before the chunk that ends the
response (``finish``, ``error``, ``abort``). docs/ai-sdk.md has the whole mapping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from contracts import (
    CostUpdatedEvent,
    ErrorEvent,
    GraphTopologyEvent,
    NodeCompletedEvent,
    NodeStartedEvent,
    PausedEvent,
    SnapshotEvent,
    TokenDeltaEvent,
    TurnCompletedEvent,
)

if TYPE_CHECKING:
    from contracts import Envelope, PendingApproval

__all__ = ("DOCUMENT_MEDIA_TYPE", "Chunk", "UIMessageTranslator", "approval_id_of", "tool_approval_id")

Chunk = dict[str, Any]
"""One UI message chunk, as JSON: ``{"type": "text-delta", "id": ..., "delta": ...}``."""
DOCUMENT_MEDIA_TYPE = "text/markdown"
"""What a cited knowledge-base document is (its ``source-document`` part's ``mediaType``)."""
_APPROVAL_NODE = "human_approval"
_ACTION_NODE = "execute_action"
_ANSWER_NODE = "generate_answer"


def tool_approval_id(run_id: str, approval_id: str) -> str:
    """The ``approvalId`` of a paused run's ``tool-approval-request``: the run and the approval it waits for."""
    return f"{run_id}:{approval_id}"


def approval_id_of(tool_approval: str) -> tuple[str, str]:
    """The run and the approval a ``tool_approval_id`` names (``("", "")`` parts when it is not one)."""
    run_id, _, approval_id = tool_approval.partition(":")
    return run_id, approval_id


class UIMessageTranslator:
    def __init__(self, *, message_id: str, deciding: str | None = None) -> None:
        """``message_id``: the assistant message's id (the run's). ``deciding``: the approval this response
        continues the run after (an approval's POST), whose tool part the client already has."""
        self.message_id = message_id
        self.finished = False
        """True once the chunk that ends the response (``finish``, ``error`` or ``abort``) is out."""
        self._started = False
        self._steps: list[str] = []
        self._text_id: str | None = None
        self._streamed: list[str] = []
        self._approval: str | None = deciding
        self._tool_call: str | None = None if deciding is None else approval_id_of(deciding)[1]
        self._cost: Chunk | None = None

    def translate(self, envelope: Envelope, *, more: bool = False) -> list[Chunk]:
        """The chunks ``envelope``, the run's next event, becomes. ``more``: events after it are known already
        (a replay), so a pause among them ends nothing."""
        if self.finished:
            return []
        out: list[Chunk] = []
        if not self._started:
            self._started = True
            out.append(
                {
                    "type": "start",
                    "messageId": self.message_id,
                    "messageMetadata": {"runId": envelope.run_id},
                }
            )
        match envelope:
            case NodeStartedEvent(data=data):
                if data.node in self._steps:
                    out += self._finish_step(data.node)
                self._steps.append(data.node)
                out.append({"type": "start-step"})
                out.append(_node(data.node, data.step, "started"))
            case NodeCompletedEvent(data=data):
                out += self._end_text()
                out += self._decided(data.node, data.outcome)
                if data.node == _ACTION_NODE and self._tool_call is not None:
                    output = {"outcome": data.outcome, "summary": data.summary}
                    out.append({"type": "tool-output-available", "toolCallId": self._tool_call, "output": output})
                details = {"latencyMs": data.latency_ms, "outcome": data.outcome, "summary": data.summary}
                out.append(_node(data.node, data.step, "completed", details))
                out += self._finish_step(data.node)
            case TokenDeltaEvent(data=data) if data.text:
                out += self._stream_text(envelope, data.text)
            case CostUpdatedEvent(data=data):
                self._cost = {"type": "data-cost", "id": "cost", "data": msgspec.to_builtins(data)}
                out.append(self._cost)
            case GraphTopologyEvent(data=data):
                out.append({"type": "data-topology", "data": msgspec.to_builtins(data), "transient": True})
            case SnapshotEvent(data=data):
                out.append({"type": "data-snapshot", "data": msgspec.to_builtins(data), "transient": True})
            case PausedEvent(data=data):
                out += self._paused(envelope.run_id, data.approval)
                if not more:
                    out += self._close()
                    out.append(self._finish("tool-calls", {"status": "paused"}))
            case TurnCompletedEvent():
                out += self._completed(envelope)
            case ErrorEvent(data=data) if envelope.status == "cancelled":
                out += self._close()
                self.finished = True
                out.append({"type": "abort", "reason": f"{data.code}: {data.message}"})
            case ErrorEvent(data=data):
                out += self._close()
                out.append({"type": "error", "errorText": data.message})
                out.append(self._finish("error", {"status": "failed", "code": data.code, "retryable": data.retryable}))
            case _:
                pass  # a token_delta with no visible text, interaction_logged
        return out

    def _paused(self, run_id: str, approval: PendingApproval) -> list[Chunk]:
        out = self._end_text()
        self._approval = tool_approval_id(run_id, approval.approval_id)
        self._tool_call = approval.approval_id
        out.append(
            {
                "type": "tool-input-available",
                "toolCallId": self._tool_call,
                "toolName": approval.action,
                "input": {"summary": approval.summary},
                "title": approval.summary,
            }
        )
        out.append(
            {
                "type": "tool-approval-request",
                "approvalId": self._approval,
                "toolCallId": self._tool_call,
                "reason": approval.summary,
            }
        )
        return out

    def _decided(self, node: str, outcome: str) -> list[Chunk]:
        """The approval's answer, when the approval node completes with one (a replay learns it here)."""
        if node != _APPROVAL_NODE or self._approval is None or self._tool_call is None:
            return []
        if outcome not in ("approved", "rejected"):
            return []
        approved = outcome == "approved"
        out: list[Chunk] = [{"type": "tool-approval-response", "approvalId": self._approval, "approved": approved}]
        if not approved:
            out.append({"type": "tool-output-denied", "toolCallId": self._tool_call})
        return out

    def _completed(self, envelope: TurnCompletedEvent) -> list[Chunk]:
        response = envelope.data.response
        out: list[Chunk] = []
        answer = response.answer.text
        if answer and answer != "".join(self._streamed):
            # not streamed in this response (a refusal, an action's result), or replaced (a blocked answer)
            out += self._end_text()
            self._streamed = []
            out += self._stream_text(envelope, answer)
        out += self._close()
        out += [
            {
                "type": "source-document",
                "sourceId": citation.doc_id,
                "mediaType": DOCUMENT_MEDIA_TYPE,
                "title": citation.title,
                "providerMetadata": {"harness": {"snippet": citation.snippet}},
            }
            for citation in response.citations
        ]
        reason = "content-filter" if response.status == "refused" else "stop"
        metadata: dict[str, Any] = {"status": response.status, "usage": msgspec.to_builtins(response.usage)}
        if envelope.human_wait_ms is not None:
            metadata["humanWaitMs"] = envelope.human_wait_ms
        out.append(self._finish(reason, metadata))
        return out

    def _stream_text(self, envelope: Envelope, text: str) -> list[Chunk]:
        out: list[Chunk] = []
        if self._text_id is None:
            self._text_id = f"{envelope.run_id}-{envelope.seq}"
            out.append({"type": "text-start", "id": self._text_id})
        self._streamed.append(text)
        out.append({"type": "text-delta", "id": self._text_id, "delta": text})
        return out

    def _end_text(self) -> list[Chunk]:
        if self._text_id is None:
            return []
        text_id, self._text_id = self._text_id, None
        return [{"type": "text-end", "id": text_id}]

    def _finish_step(self, node: str) -> list[Chunk]:
        if node not in self._steps:
            return []
        self._steps.remove(node)
        return [{"type": "finish-step"}]

    def _close(self) -> list[Chunk]:
        """End the text and every open step: a response closes what it opened."""
        out = self._end_text()
        for node in reversed(list(self._steps)):
            out += self._finish_step(node)
        return out

    def _finish(self, reason: str, metadata: dict[str, Any]) -> Chunk:
        self.finished = True
        return {"type": "finish", "finishReason": reason, "messageMetadata": metadata}


def _node(node: str, step: int, state: str, details: dict[str, Any] | None = None) -> Chunk:
    return {
        "type": "data-node",
        "data": {"node": node, "step": step, "state": state, **(details or {})},
        "transient": True,
    }
