"""A run's envelopes in, the AI SDK's UI message chunks out: one response's worth of a run of any graph.

A run is one assistant message, whose id is the run's id. A POST answers the part of the run that request
caused: a new run from its first event to its end or its pause; an approval from the event after the pause to
the end. ``GET .../chat/{id}/stream`` answers the whole run from its first event, a pause it went past included,
so a client that replays it (``resumeStream``) rebuilds the same message it would have had.
``UIMessageTranslator`` maps the shared projection (``api.projection``) to UI message chunks: steps, text parts,
the model's tool calls and their results, ``data-*`` parts, a pause as a tool part awaiting approval, and the
chunk that ends the response (``finish``, ``error``, ``abort``); the projection opens the message before the
first and closes what it opened before the end. docs/ai-sdk.md has the whole mapping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api import projection

if TYPE_CHECKING:
    from collections.abc import Mapping

    from api.projection import UiEvent
    from contracts import Envelope

__all__ = ("DOCUMENT_MEDIA_TYPE", "Chunk", "UIMessageTranslator", "approval_id_of", "tool_approval_id")

Chunk = dict[str, Any]
"""One UI message chunk, as JSON: ``{"type": "text-delta", "id": ..., "delta": ...}``."""
DOCUMENT_MEDIA_TYPE = "text/markdown"
"""What a cited knowledge-base document is (its ``source-document`` part's ``mediaType``)."""
_TRANSIENT_DATA = {"graph_topology": "data-topology", "snapshot": "data-snapshot"}
"""Contract events shown while the response streams, not kept in the message."""
_KEPT_DATA = {"cost_updated": "data-cost", "custom": "data-custom"}


def tool_approval_id(run_id: str, approval_id: str) -> str:
    """The ``approvalId`` of a paused run's ``tool-approval-request``: the run and the approval it waits for."""
    return f"{run_id}:{approval_id}"


def approval_id_of(tool_approval: str) -> tuple[str, str]:
    """The run and the approval a ``tool_approval_id`` names (``("", "")`` parts when it is not one)."""
    run_id, _, approval_id = tool_approval.partition(":")
    return run_id, approval_id


class UIMessageTranslator:
    def __init__(
        self,
        *,
        message_id: str,
        deciding: str | None = None,
        tool_call_id: str | None = None,
        approved: bool | None = None,
        roles: Mapping[str, str] | None = None,
    ) -> None:
        """``message_id``: the assistant message's id (the run's). ``deciding``: the approval this response continues
        the run after (an approval's POST), whose tool part (``tool_call_id``) the client already has, and whether
        the person ``approved``. ``roles``: the graph's node roles (``RegisteredGraph.node_roles``)."""
        self.message_id = message_id
        self._projection = projection.RunProjection(roles=roles, decision=approved)
        self._approval: str | None = deciding
        self._tool_call: str | None = tool_call_id or (None if deciding is None else approval_id_of(deciding)[1])
        self._awaiting_output = deciding is not None and approved is not False
        """The approval's tool part waits for what the action came to: a tool's result, or the node's completion."""

    @property
    def finished(self) -> bool:
        """True once the chunk that ends the response (``finish``, ``error`` or ``abort``) is out."""
        return self._projection.ended

    def translate(self, envelope: Envelope, *, more: bool = False) -> list[Chunk]:
        """The chunks ``envelope``, the run's next event, becomes. ``more``: events after it are known already
        (a replay), so a pause among them ends nothing."""
        out: list[Chunk] = []
        paused: Chunk | None = None
        for event in self._projection.project(envelope, more=more):
            if isinstance(event, projection.ApprovalRequested):
                out += self._requested(event)
                if event.ends:
                    paused = _finish("tool-calls", {"status": "paused"})  # after the steps closed with it
            else:
                out += self._map(event)
        if paused is not None:
            out.append(paused)
        return out

    def _map(self, event: UiEvent) -> list[Chunk]:
        match event:
            case projection.RunOpened(run_id=run_id):
                return [{"type": "start", "messageId": self.message_id, "messageMetadata": {"runId": run_id}}]
            case projection.StepStarted(name=name, step=step):
                return [{"type": "start-step"}, _node(name, step, "started")]
            case projection.StepFinished(name=name, step=step, details=details):
                if details is None:
                    return [{"type": "finish-step"}]
                shown = {
                    "latencyMs": details["latency_ms"],
                    "outcome": details["outcome"],
                    "summary": details["summary"],
                }
                return [_node(name, step, "completed", shown), {"type": "finish-step"}]
            case projection.TextStarted(message_id=text_id):
                return [{"type": "text-start", "id": text_id}]
            case projection.TextDelta(message_id=text_id, delta=delta):
                return [{"type": "text-delta", "id": text_id, "delta": delta}]
            case projection.TextEnded(message_id=text_id):
                return [{"type": "text-end", "id": text_id}]
            case projection.ToolCallStarted(tool_call_id=call_id, name=name):
                return [{"type": "tool-input-start", "toolCallId": call_id, "toolName": name}]
            case projection.ToolCallArgs(tool_call_id=call_id, delta=delta):
                return [{"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": delta}]
            case projection.ToolCallEnded(tool_call_id=call_id, name=name, args=args):
                return [{"type": "tool-input-available", "toolCallId": call_id, "toolName": name, "input": args}]
            case projection.ToolResult(tool_call_id=call_id, content=content):
                out = [{"type": "tool-output-available", "toolCallId": call_id, "output": content}]
                if self._awaiting_output and self._tool_call is not None:  # the approved tool ran: its result
                    self._awaiting_output = False
                    out.append({"type": "tool-output-available", "toolCallId": self._tool_call, "output": content})
                return out
            case projection.Data(name=name, value=value):
                if name in _TRANSIENT_DATA:
                    return [{"type": _TRANSIENT_DATA[name], "data": value, "transient": True}]
                if name == "cost_updated":
                    return [{"type": "data-cost", "id": "cost", "data": value}]
                if name in _KEPT_DATA:
                    return [{"type": _KEPT_DATA[name], "data": value}]
                return []
            case projection.ApprovalAnswered(approved=approved):
                return self._answered(approved)
            case projection.ActionResult(outcome=outcome, summary=summary):
                if not self._awaiting_output or self._tool_call is None:
                    return []
                self._awaiting_output = False
                output = {"outcome": outcome, "summary": summary}
                return [{"type": "tool-output-available", "toolCallId": self._tool_call, "output": output}]
            case projection.Finished():
                return self._finished(event)
            case projection.Failed(code=code, message=message, retryable=retryable):
                return [
                    {"type": "error", "errorText": message},
                    _finish("error", {"status": "failed", "code": code, "retryable": retryable}),
                ]
            case projection.Cancelled(code=code, message=message):
                return [{"type": "abort", "reason": f"{code}: {message}"}]
            case _:
                return []  # state snapshots, usage: a chat message has no place for them

    def _requested(self, event: projection.ApprovalRequested) -> list[Chunk]:
        """The pause as a tool part of its own in the step that asked (``lastAssistantMessageIsCompleteWith...``
        looks for it in the message's last step, after any call the model made of the same tool)."""
        approval = event.approval
        self._approval = tool_approval_id(event.run_id, approval.approval_id)
        self._tool_call = approval.approval_id
        self._awaiting_output = True
        return [
            {
                "type": "tool-input-available",
                "toolCallId": self._tool_call,
                "toolName": approval.action,
                "input": event.tool_input,
                "title": approval.summary,
            },
            {
                "type": "tool-approval-request",
                "approvalId": self._approval,
                "toolCallId": self._tool_call,
                "reason": approval.summary,
            },
        ]

    def _answered(self, approved: bool) -> list[Chunk]:
        """The approval's answer (a replay learns it from the run; an approval's POST knew it)."""
        if self._approval is None or self._tool_call is None:
            return []
        out: list[Chunk] = [{"type": "tool-approval-response", "approvalId": self._approval, "approved": approved}]
        if not approved:
            self._awaiting_output = False
            out.append({"type": "tool-output-denied", "toolCallId": self._tool_call})
        return out

    def _finished(self, event: projection.Finished) -> list[Chunk]:
        out: list[Chunk] = [
            {
                "type": "source-document",
                "sourceId": citation.doc_id,
                "mediaType": DOCUMENT_MEDIA_TYPE,
                "title": citation.title,
                "providerMetadata": {"harness": {"snippet": citation.snippet}},
            }
            for citation in event.citations
        ]
        reason = "content-filter" if event.status == "refused" else "stop"
        metadata: dict[str, Any] = {"status": event.status}
        if event.usage is not None:
            metadata["usage"] = event.usage
        if event.human_wait_ms is not None:
            metadata["humanWaitMs"] = event.human_wait_ms
        out.append(_finish(reason, metadata))
        return out


def _finish(reason: str, metadata: dict[str, Any]) -> Chunk:
    return {"type": "finish", "finishReason": reason, "messageMetadata": metadata}


def _node(node: str, step: int, state: str, details: dict[str, Any] | None = None) -> Chunk:
    return {
        "type": "data-node",
        "data": {"node": node, "step": step, "state": state, **(details or {})},
        "transient": True,
    }
