"""The client's messages of a task, read back from the graph's checkpoints: what the service keeps of them.

The event log holds what a run did, not what it was given: its input and the answers to its interrupts are read
from its thread's checkpoints (``api.runs.run_inputs``), as durable as the thread.

They come back as the graph took them: a chat graph's human messages with their ids (a message's id is the
client's), any other input as one data part, an answer as its text or its data part. An id the graph does not keep
(a data input's, an answer's) is the task's own: ``{task}-input``, ``{task}-answer-{n}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage

from api.a2a.types import Message, Part
from api.runs.run_inputs import run_inputs

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

__all__ = ("ClientMessages", "client_messages")

_USER = "ROLE_USER"


@dataclass(frozen=True, slots=True)
class ClientMessages:
    """A task's client messages: the ones that started it, and the answers to its interrupts, in order."""

    started: list[Message]
    answers: list[Message]


async def client_messages(
    checkpointer: BaseCheckpointSaver[Any], context_id: str, task_id: str, *, chat: bool
) -> ClientMessages:
    """The client's messages of the task ``task_id`` (a run) in the context ``context_id`` (its thread); ``chat``:
    the graph takes ``messages``, whose human ones are the client's."""
    given = await run_inputs(checkpointer, context_id, task_id)
    started = [message for value in given.inputs for message in _inputs(value, context_id, task_id, chat=chat)]
    answers = [
        _message(f"{task_id}-answer-{number}", _part(value), context_id, task_id)
        for number, value in enumerate(given.resumes, 1)
    ]
    return ClientMessages(started, answers)


def _inputs(given: Any, context_id: str, task_id: str, *, chat: bool) -> list[Message]:
    said = given.get("messages") if chat and isinstance(given, dict) else None
    if not isinstance(said, list):
        return [_message(f"{task_id}-input", Part(data=given), context_id, task_id)]
    out: list[Message] = []
    for index, message in enumerate(said):
        kind, content, message_id = _fields(message)
        if kind not in ("human", "HumanMessage", "user"):
            continue
        text = content if isinstance(content, str) else _text_of(content)
        out.append(_message(message_id or f"{task_id}-input-{index}", Part(text=text), context_id, task_id))
    return out


def _fields(message: Any) -> tuple[Any, Any, Any]:
    if isinstance(message, BaseMessage):
        return message.type, message.content, message.id
    if isinstance(message, dict):
        return message.get("type") or message.get("role"), message.get("content"), message.get("id")
    return None, None, None


def _text_of(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "".join(
        str(block.get("text") or "") if isinstance(block, dict) else str(block)
        for block in content
        if isinstance(block, str) or (isinstance(block, dict) and block.get("type", "text") == "text")
    )


def _part(value: Any) -> Part:
    return Part(text=value) if isinstance(value, str) else Part(data=value)


def _message(message_id: str, part: Part, context_id: str, task_id: str) -> Message:
    return Message(message_id=message_id, context_id=context_id, task_id=task_id, role=_USER, parts=[part])
