"""What a ``POST`` of the AI SDK's chat asks: a new run's input, or the answer to the tool approval its run waits on.

Only the newest message is read. A user message starts a run: on ``POST /ai-sdk/chat`` (the support agent's) the
text of its ``text`` parts is the turn, held to the same rules as ``ChatRequest.message`` (1 to 4000 characters
once trimmed); on ``POST /ai-sdk/{assistant_id}/chat`` it is the graph's input as a LangChain human message (with
the client's id) when the graph takes ``messages``, else the body's ``input`` is. An assistant message whose tool
part is in state ``approval-responded`` answers the approval that paused the run: ``approved`` decides it
(``approve`` or ``reject``), ``reason`` is the decision's comment, and the graph is resumed with
``{"decision", "comment"}``. Anything else is a 422, and so is an id of the client's holding a personal number.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from litestar.exceptions import ValidationException

from api.ai_sdk.translate import approval_id_of
from api.chat_runs import Decision, NewTurn, as_graph_input, is_chat_message, takes_messages
from api.request_checks.client_ids import refuse_personal_ids
from contracts import ResumeRequest

if TYPE_CHECKING:
    from agent.graphs import RegisteredGraph
    from contracts.ai_sdk import AiSdkChatRequest, AiSdkUIMessage

__all__ = ("requested_turn",)

_ANSWERED = "approval-responded"


def requested_turn(data: AiSdkChatRequest, registered: RegisteredGraph | None = None) -> NewTurn | Decision:
    """The run ``data`` starts (of ``registered``; None: the support agent's own route), or the decision it makes."""
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
        return _turn(data, message, index, registered)
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


def _turn(data: AiSdkChatRequest, message: AiSdkUIMessage, index: int, registered: RegisteredGraph | None) -> NewTurn:
    text = "\n".join(
        part["text"] for part in message.parts if part.get("type") == "text" and isinstance(part.get("text"), str)
    )
    if registered is not None and not takes_messages(registered):
        if data.input is None:
            raise _invalid("input", f"graph {registered.graph_id!r} takes no messages: send its input as `input`")
        return NewTurn(graph_input=data.input)
    if not is_chat_message(text, data.id):
        raise _invalid(f"messages[{index}].parts", "the newest user message must have 1 to 4000 characters of text")
    if registered is None:
        return NewTurn(graph_input={"message": text}, message=text)
    return NewTurn(graph_input=as_graph_input([{"type": "human", "content": text, "id": message.id}]))


def _decision(part: dict[str, Any], session_id: str, where: str) -> Decision:
    approval = part.get("approval")
    if not isinstance(approval, dict) or not isinstance(approval.get("approved"), bool):
        raise _invalid(f"{where}.approval", "an answered approval has `id` and `approved` (true or false)")
    tool_approval = approval.get("id")
    run_id, approval_id = approval_id_of(tool_approval) if isinstance(tool_approval, str) else ("", "")
    reason = approval.get("reason")
    comment = reason if isinstance(reason, str) and reason.strip() else None
    approved: bool = approval["approved"]
    try:
        msgspec.convert(  # the ids and the comment as every decision takes them
            {
                "run_id": run_id,
                "approval_id": approval_id,
                "decision": "approve" if approved else "reject",
                "comment": comment,
                "session_id": session_id,
            },
            ResumeRequest,
        )
    except msgspec.ValidationError as exc:
        raise _invalid(
            f"{where}.approval",
            f"not an approval this service asked for (its id is `<run_id>:<approval_id>`): {exc}",
        ) from None
    tool_call = part.get("toolCallId")
    return Decision(
        run_id=run_id,
        approval_id=approval_id,
        value={"decision": "approve" if approved else "reject", "comment": comment},
        approved=approved,
        tool_call_id=tool_call if isinstance(tool_call, str) else None,
    )


def _is_tool(part: dict[str, Any]) -> bool:
    kind = part.get("type")
    return isinstance(kind, str) and (kind.startswith("tool-") or kind == "dynamic-tool")


def _invalid(field: str, message: str) -> ValidationException:
    return ValidationException(detail=message, extra=[{"key": field, "message": message, "source": "body"}])
