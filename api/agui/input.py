"""What an AG-UI ``RunAgentInput`` asks: a new run's input, or the answer to the interrupt its thread waits at.

On ``POST /ag-ui`` (the support agent's) a new turn is the newest ``user`` message, held to the same rules as
``ChatRequest.message`` (1 to 4000 characters once trimmed); an input with ``resume`` decides the interrupt it
names (``approve`` or ``reject``). On ``POST /ag-ui/{assistant_id}`` a graph whose input has ``messages`` is given
the conversation as LangChain messages (tool calls and results included, each with the client's id), any other
graph ``forwardedProps.input``; ``resume``'s payload is what ``interrupt()`` returns. Either way an abandoned
(``cancelled``) interrupt is a rejection, an input with ``resume`` ignores ``messages``, and an id of the
client's holding a personal number is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from litestar.exceptions import ValidationException

from api.chat_runs import Decision, NewTurn, as_graph_input, is_chat_message, takes_messages
from api.request_checks.client_ids import refuse_personal_ids
from contracts.agui import AgUiCancelledEntry, AgUiGraphResolvedEntry, AgUiResolvedEntry

if TYPE_CHECKING:
    from agent.graphs import RegisteredGraph
    from contracts.agui import AgUiGraphRunInput, AgUiMessage, AgUiRunInput

__all__ = ("graph_turn", "requested_turn", "run_options")

_ABANDONED = "The interrupt was abandoned (AG-UI resume status `cancelled`)."
_ROLES = {"user": "human", "assistant": "ai", "tool": "tool", "system": "system", "developer": "system"}
"""AG-UI's message roles as LangChain's message types (``activity`` and ``reasoning`` messages are the UI's)."""


def requested_turn(data: AgUiRunInput) -> NewTurn | Decision:
    """The support agent's turn ``data`` starts, or the decision it makes; a 422 when it carries neither."""
    _refuse_personal_ids(data)
    if data.resume:
        return _decision(data.resume[0])
    for index in range(len(data.messages) - 1, -1, -1):
        message = data.messages[index]
        if message.role == "user":
            text = _text(message)
            if not is_chat_message(text, data.thread_id):
                raise _invalid(
                    f"messages[{index}].content", "the newest user message must have 1 to 4000 characters of text"
                )
            return NewTurn(graph_input={"message": text}, message=text)
    raise _invalid("messages", "there is no user message to answer (and no `resume` to continue a paused run)")


def graph_turn(data: AgUiGraphRunInput, registered: RegisteredGraph) -> NewTurn | Decision:
    """The run of ``registered`` that ``data`` starts, or the answer it gives to the thread's interrupt."""
    _refuse_personal_ids(data)
    if data.resume:
        return _decision(data.resume[0])
    if takes_messages(registered):
        if not any(message.role == "user" for message in data.messages):
            raise _invalid("messages", "there is no user message to answer (and no `resume` to continue a run)")
        return NewTurn(graph_input=as_graph_input([_langchain(message) for message in data.messages]))
    props = data.forwarded_props or {}
    if "input" not in props:
        raise _invalid("forwardedProps.input", f"graph {registered.graph_id!r} takes no messages: send its input here")
    return NewTurn(graph_input=props["input"])


def run_options(data: AgUiGraphRunInput) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``forwardedProps.config`` and ``forwardedProps.context``, when they are objects (else a 422)."""
    props = data.forwarded_props or {}
    found = []
    for key in ("config", "context"):
        value = props.get(key)
        if value is not None and not isinstance(value, dict):
            raise _invalid(f"forwardedProps.{key}", "must be an object")
        found.append(value)
    return found[0], found[1]


def _refuse_personal_ids(data: AgUiRunInput | AgUiGraphRunInput) -> None:
    refuse_personal_ids(
        [
            ("runId", data.run_id),
            ("parentRunId", data.parent_run_id),
            *((f"messages[{index}].id", message.id) for index, message in enumerate(data.messages)),
            *(
                (f"messages[{index}].toolCalls[{number}].id", call.id)
                for index, message in enumerate(data.messages)
                for number, call in enumerate(message.tool_calls or [])
            ),
            *((f"messages[{index}].toolCallId", message.tool_call_id) for index, message in enumerate(data.messages)),
        ]
    )


def _decision(entry: AgUiResolvedEntry | AgUiGraphResolvedEntry | AgUiCancelledEntry) -> Decision:
    run_id, _, approval_id = entry.interrupt_id.partition(":")
    if isinstance(entry, AgUiResolvedEntry):
        payload: Any = msgspec.to_builtins(entry.payload)
    elif isinstance(entry, AgUiGraphResolvedEntry):
        payload = entry.payload
    else:
        payload = {"decision": "reject", "comment": _ABANDONED}
    decision = payload.get("decision") if isinstance(payload, dict) else None
    approved = None if decision not in ("approve", "reject") else decision == "approve"
    return Decision(run_id=run_id, approval_id=approval_id, value=payload, approved=approved)


def _langchain(message: AgUiMessage) -> dict[str, Any]:
    """An AG-UI message in LangChain's dict form."""
    converted: dict[str, Any] = {"type": _ROLES.get(message.role, "human"), "content": _text(message), "id": message.id}
    if message.tool_calls:
        converted["tool_calls"] = [
            {"id": call.id, "name": call.function.name, "args": _arguments(call.function.arguments)}
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        converted["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        converted["name"] = message.name
    return converted


def _arguments(text: str) -> Any:
    try:
        return msgspec.json.decode(text) if text else {}
    except msgspec.DecodeError:
        return {"arguments": text}


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
