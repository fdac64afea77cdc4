"""A fake LangChain chat model for tests and examples: deterministic, offline, and able to call tools.

LangChain's ``GenericFakeChatModel`` plays a fixed list of messages in order, whatever the conversation; a
graph that loops or resumes needs an answer that depends on what was said. So the model is a *script*: a
function of the conversation returning the next message (an ``AIMessage``, possibly with ``tool_calls``, or
plain text). The answer streams word by word as ``AIMessageChunk``s, its tool calls and token counts on the
last chunk, as a real provider's would; the same conversation always gets the same answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable  # noqa: TC003 (pydantic resolves the script's type at runtime)
from typing import TYPE_CHECKING, Any, TypeAlias

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from agent.llm.tool_calling import ToolCallingChatModel

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator, Sequence

    from langchain_core.callbacks import CallbackManagerForLLMRun

__all__ = ("Script", "ScriptedChatModel")

Script: TypeAlias = "Callable[[list[BaseMessage]], AIMessage | str]"
_PIECE = re.compile(r"\s*\S+")


class ScriptedChatModel(ToolCallingChatModel):
    """Answers each conversation with ``script(conversation)``."""

    script: Script
    model_name: str = "scripted-1"

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _result(self, messages: list[BaseMessage], options: dict[str, Any]) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.answer(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from self._chunks(self.answer(messages))

    async def _answer_chunks(
        self, messages: list[BaseMessage], options: dict[str, Any]
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(self.answer(messages)):
            yield chunk

    def answer(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """The script's answer to ``messages``, with ids for its tool calls and its token counts."""
        said = self.script(list(messages))
        answer = AIMessage(content=said) if isinstance(said, str) else said
        calls = [
            {**call, "id": call.get("id") or _call_id(messages, index)} for index, call in enumerate(answer.tool_calls)
        ]
        return AIMessage(
            content=answer.content,
            tool_calls=calls,
            usage_metadata=_usage(messages, answer.text),
            response_metadata={"model_name": self.model_name, "model_provider": "scripted", "finish_reason": "stop"},
        )

    def _chunks(self, answer: AIMessage) -> Iterator[ChatGenerationChunk]:
        pieces = _PIECE.findall(answer.text)
        for piece in pieces[:-1]:
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content=pieces[-1] if pieces else "",
                tool_call_chunks=[
                    {"name": call["name"], "args": json.dumps(call["args"]), "id": call["id"], "index": index}
                    for index, call in enumerate(answer.tool_calls)
                ],
                usage_metadata=answer.usage_metadata,
                response_metadata=answer.response_metadata,
                chunk_position="last",
            )
        )


def _usage(messages: Sequence[BaseMessage], text: str) -> Any:
    input_tokens = sum(len(message.text.split()) for message in messages)
    output_tokens = len(_PIECE.findall(text))
    return {"input_tokens": input_tokens, "output_tokens": output_tokens, "total_tokens": input_tokens + output_tokens}


def _call_id(messages: Sequence[BaseMessage], index: int) -> str:
    """The same for the same conversation, so a replayed run calls its tools by the same ids."""
    said = json.dumps([[message.type, message.text] for message in messages])
    return "call_" + hashlib.sha256(f"{said}#{index}".encode()).hexdigest()[:24]
