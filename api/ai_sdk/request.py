"""What a ``POST /ai-sdk/chat`` asks of the agent: a new turn's message, or the decision of a paused run.

Only the newest message is read. A user message is a new turn: the text of its ``text`` parts, held to the
same rules as ``ChatRequest.message`` (1 to 4000 characters once trimmed). An assistant message whose tool
part is in state ``approval-responded`` answers the approval that paused the run: ``approved`` decides it
(``approve`` or ``reject``), ``reason`` is the decision's comment. Anything else is a 422.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from litestar.exceptions import ValidationException

from api.ai_sdk.translate import approval_id_of
from api.request_checks.client_ids import refuse_personal_ids
from contracts import ChatRequest, ResumeRequest

if TYPE_CHECKING:
    from contracts.ai_sdk import AiSdkChatRequest, AiSdkUIMessage

__all__ = ("requested_turn",)

_ANSWERED = "approval-responded"


def requested_turn(data: AiSdkChatRequest) -> ChatRequest | ResumeRequest:
    """The turn ``data`` starts, or the decision it makes; a 422 when it carries neither, or an id of the client's
    that holds a personal number."""
    refuse_personal_ids(
        [
            ("messageId", data.message_id),
            *((f"messages[{index}].id", message.id) for index, message in enumerate(data.messages)),
            *(
                (f"messages[{index}].parts[{number}].toolCallId", part.get("toolCallId"))
                for index, message in enumerate(data.messages)
                for number, part in enumerate(message.parts)
                if isinstance(part.get("toolCallId"), str)
            ),
        ]
    )
    index = len(data.messages) - 1
    message = data.messages[index]
    if message.role == "user":
        return _turn(message, data.id, index)
    if message.role == "assistant":
        for number, part in enumerate(message.parts):
            if _is_tool(part) and part.get("state") == _ANSWERED:
                return _decision(part, data.id, f"messages[{index}].parts[{number}]")
        raise _invalid(
            f"messages[{index}]",
            "the newest message is an assistant message with no tool part in state `approval-responded`: "
            "there is nothing to answer",
        )
    raise _invalid(f"messages[{index}].role", "the newest message must be the user's, or an approval's answer")


def _turn(message: AiSdkUIMessage, session_id: str, index: int) -> ChatRequest:
    text = "\n".join(
        part["text"] for part in message.parts if part.get("type") == "text" and isinstance(part.get("text"), str)
    )
    try:
        return msgspec.convert({"message": text, "session_id": session_id}, ChatRequest)
    except msgspec.ValidationError:
        raise _invalid(
            f"messages[{index}].parts", "the newest user message must have 1 to 4000 characters of text"
        ) from None


def _decision(part: dict[str, Any], session_id: str, where: str) -> ResumeRequest:
    approval = part.get("approval")
    if not isinstance(approval, dict) or not isinstance(approval.get("approved"), bool):
        raise _invalid(f"{where}.approval", "an answered approval has `id` and `approved` (true or false)")
    tool_approval = approval.get("id")
    run_id, approval_id = approval_id_of(tool_approval) if isinstance(tool_approval, str) else ("", "")
    reason = approval.get("reason")
    try:
        return msgspec.convert(
            {
                "run_id": run_id,
                "approval_id": approval_id,
                "decision": "approve" if approval["approved"] else "reject",
                "comment": reason if isinstance(reason, str) and reason.strip() else None,
                "session_id": session_id,
            },
            ResumeRequest,
        )
    except msgspec.ValidationError as exc:
        raise _invalid(
            f"{where}.approval",
            f"not an approval this service asked for (its id is `<run_id>:<approval_id>`): {exc}",
        ) from None


def _is_tool(part: dict[str, Any]) -> bool:
    kind = part.get("type")
    return isinstance(kind, str) and (kind.startswith("tool-") or kind == "dynamic-tool")


def _invalid(field: str, message: str) -> ValidationException:
    return ValidationException(detail=message, extra=[{"key": field, "message": message, "source": "body"}])
