"""A ``tools/call``'s answer from its run's committed events (``StreamEncoder``s for ``RunStreams.follow``), made
from the shared projection (``api.projection``).

Each node started or completed and each custom write is a ``notifications/progress`` (when the call gave a
``progressToken``), its ``progress`` a count that only grows, its ``message`` what happened. The run's end is the
call's result: the final state as ``structuredContent`` and its answer (the last AI message's text, else the state
as JSON) as text content; a failure a result with ``isError``; a pause at an ``interrupt()`` a result that names
the pending approval and how to decide it, with the state as its last ``values`` said (so that it still matches the
tool's output schema). ``ToolCallStream`` is the SSE answer (the events, then the response),
``ToolCallResult`` the JSON one (a newline at each heartbeat, then the response).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from api.mcp.elicitation import elicitation_request
from api.mcp.jsonrpc import notification_body, result_body, sse_frame
from api.projection import (
    ApprovalRequested,
    Cancelled,
    Data,
    Failed,
    Finished,
    RunProjection,
    StateSnapshot,
    StepFinished,
    StepStarted,
)
from api.runs.stream.frames import HEARTBEAT
from contracts import Envelope

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence

    from api.projection import UiEvent
    from api.runs.log.records import StoredEvent

__all__ = ("ToolCallProjection", "ToolCallResult", "ToolCallStream")

_decode = msgspec.json.Decoder(Envelope).decode
_encode = msgspec.json.Encoder().encode


class ToolCallProjection:
    """One ``tools/call`` of a run: its progress notifications, and its result once the run settles."""

    def __init__(
        self,
        *,
        call_id: str | int | None,
        run_id: str,
        thread_id: str,
        progress_token: str | int | None,
        roles: Mapping[str, str] | None = None,
        elicit: bool = False,
    ) -> None:
        """``elicit``: a pause asks the client (an elicitation on the call's stream) instead of ending the call."""
        self._call_id = call_id
        self._run_id = run_id
        self._thread_id = thread_id
        self._token = progress_token
        self._roles = roles
        self._projection = RunProjection(roles=roles)
        self._elicit = elicit
        self._progress = 0
        self._values: dict[str, Any] = {}
        """The graph's state as its last ``values`` said: what a paused call's result holds."""
        self.result: dict[str, Any] | None = None
        """The call's result, once the run ended or paused."""

    @property
    def settled(self) -> bool:
        return self.result is not None

    def project(self, events: Sequence[StoredEvent]) -> list[tuple[int, bytes]]:
        """The JSON-RPC messages ``events`` make (each with its seq): notifications, then the response at the end."""
        out: list[tuple[int, bytes]] = []
        last = len(events) - 1
        for index, event in enumerate(events):
            for made in self._projection.project(_decode(event.envelope), more=index < last):
                body = self._map(made)
                if body is not None:
                    out.append((event.seq, body))
            if self.settled:
                break
            if self._projection.ended:  # asked the client: the run resumed with its answer is the call's next part
                self._projection = RunProjection(roles=self._roles)
        return out

    def response(self) -> bytes:
        assert self.result is not None
        return result_body(self._call_id, self.result)

    def unsettled(self) -> bytes:
        """The response of a call whose answer had to end before its run settled (``HARNESS_STREAM_MAX_S``, or the
        service shutting down): an error result that says where the run's result is read, while the disconnect grace
        keeps the run going for a follower."""
        text = (
            f"The run {self._run_id} of thread {self._thread_id} is still going: this call's answer had to end "
            f"before it settled. Its result is read with GET /threads/{self._thread_id}/runs/{self._run_id}/join, "
            "soon: a run nobody follows is stopped after a short grace."
        )
        return result_body(self._call_id, {"content": [_text(text)], "isError": True})

    def _map(self, event: UiEvent) -> bytes | None:
        match event:
            case StepStarted(name=name):
                return self._notify(f"node {name} started")
            case StepFinished(name=name, details=details) if details is not None:
                return self._notify(f"node {name} {details.get('outcome') or 'completed'}")
            case StateSnapshot(values=values):
                self._values = values if isinstance(values, dict) else {}
                return None
            case Data(name="custom", value=value):
                return self._notify(_encode(value).decode())
            case Finished(result=result, answer=answer):
                text = answer or _last_answer(result) or _encode(result).decode()
                self.result = {"content": [_text(text)], "structuredContent": result, "isError": False}
                return self.response()
            case ApprovalRequested(approval=approval, value=value, ends=ends) if self._elicit:
                if not ends:
                    return None  # a replay past a pause answered already
                return elicitation_request(self._thread_id, self._run_id, approval, value)
            case ApprovalRequested(approval=approval, value=value):
                self.result = {
                    "content": [_text(self._pending(approval.summary, approval.approval_id))],
                    "structuredContent": {
                        **self._values,
                        "__interrupt__": [{"value": value, "id": approval.approval_id}],
                        "pending_approval": {
                            "thread_id": self._thread_id,
                            "run_id": self._run_id,
                            "approval_id": approval.approval_id,
                            "action": approval.action,
                            "summary": approval.summary,
                        },
                    },
                    "isError": False,
                }
                return self.response()
            case Failed(code=code, message=message):
                self.result = {"content": [_text(f"The run failed ({code}): {message}")], "isError": True}
                return self.response()
            case Cancelled(message=message):
                self.result = {"content": [_text(f"The run was cancelled: {message}")], "isError": True}
                return self.response()
            case _:
                return None

    def _notify(self, message: str) -> bytes | None:
        if self._token is None:
            return None
        self._progress += 1
        params = {"progressToken": self._token, "progress": self._progress, "message": message}
        return notification_body("notifications/progress", params)

    def _pending(self, summary: str, approval_id: str) -> str:
        return (
            f"The run waits for a person's approval: {summary}. Nothing more happens until it is decided: a person "
            f"with the approver role answers the interrupt of thread {self._thread_id} "
            f'(POST /threads/{self._thread_id}/runs with command.resume {{"decision": "approve"}} or '
            f'"reject"; the A2A task {self._run_id} with the message "approve"; or the SPA\'s approvals). '
            f"Approval id: {approval_id}."
        )


class ToolCallStream:
    opening = b""
    heartbeat = HEARTBEAT

    def __init__(self, projection: ToolCallProjection) -> None:
        self._projection = projection

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        return b"".join(sse_frame(body, seq) for seq, body in self._projection.project(events))

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._projection.settled


class ToolCallResult:
    opening = b""
    heartbeat = b"\n"

    def __init__(self, projection: ToolCallProjection) -> None:
        self._projection = projection

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        self._projection.project(events)
        return self._projection.response() if self._projection.result is not None else b""

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._projection.settled

    async def body(self, follow: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """The JSON answer: ``follow``'s keepalives and response, or, when it ended first, the call unsettled."""
        async for chunk in follow:
            yield chunk
        if not self._projection.settled:
            yield self._projection.unsettled()


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def _last_answer(result: Any) -> str | None:
    messages = result.get("messages") if isinstance(result, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    content = last.get("content") if isinstance(last, dict) and last.get("type") == "ai" else None
    return content if isinstance(content, str) and content else None
