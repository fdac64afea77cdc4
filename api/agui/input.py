"""What an AG-UI ``RunAgentInput`` asks of the agent: a new turn's message, or the decision of a paused run.

A new turn is the newest ``user`` message, held to the same rules as ``ChatRequest.message`` (1 to 4000
characters once trimmed). An input with ``resume`` decides the interrupt it names and ignores ``messages``;
an abandoned (``cancelled``) interrupt is a rejection: the action is not taken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from litestar.exceptions import ValidationException

from api.request_checks.client_ids import refuse_personal_ids
from contracts import ChatRequest, ResumeRequest
from contracts.agui import AgUiResolvedEntry

if TYPE_CHECKING:
    from contracts.agui import AgUiCancelledEntry, AgUiMessage, AgUiRunInput

__all__ = ("requested_turn",)


def requested_turn(data: AgUiRunInput) -> ChatRequest | ResumeRequest:
    """The turn ``data`` starts, or the decision it makes; a 422 when it carries neither, or an id of the client's
    that holds a personal number."""
    refuse_personal_ids(
        [
            ("runId", data.run_id),
            ("parentRunId", data.parent_run_id),
            *((f"messages[{index}].id", message.id) for index, message in enumerate(data.messages)),
        ]
    )
    if data.resume:
        return _decision(data.resume[0], data.thread_id)
    for index in range(len(data.messages) - 1, -1, -1):
        message = data.messages[index]
        if message.role == "user":
            return _turn(_text(message), data.thread_id, index)
    raise _invalid("messages", "there is no user message to answer (and no `resume` to continue a paused run)")


def _turn(text: str, session_id: str, index: int) -> ChatRequest:
    try:
        return msgspec.convert({"message": text, "session_id": session_id}, ChatRequest)
    except msgspec.ValidationError:
        raise _invalid(
            f"messages[{index}].content", "the newest user message must have 1 to 4000 characters of text"
        ) from None


def _decision(entry: AgUiResolvedEntry | AgUiCancelledEntry, session_id: str) -> ResumeRequest:
    run_id, _, approval_id = entry.interrupt_id.partition(":")
    if isinstance(entry, AgUiResolvedEntry):
        decision, comment = entry.payload.decision, entry.payload.comment
    else:
        decision, comment = "reject", "The interrupt was abandoned (AG-UI resume status `cancelled`)."
    return ResumeRequest(
        run_id=run_id, approval_id=approval_id, decision=decision, comment=comment, session_id=session_id
    )


def _text(message: AgUiMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"] for part in content if part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    return ""


def _invalid(field: str, message: str) -> ValidationException:
    return ValidationException(detail=message, extra=[{"key": field, "message": message, "source": "body"}])
