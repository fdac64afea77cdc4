"""``ToolCallingChatModel``: a LangChain chat model whose tools are bound the way LangChain's providers bind them,
and whose answers are made from the conversation and the call's options alone (``stop`` and the callbacks'
manager are not read: this service's clients have no stop sequences, and LangChain reports the chunks itself).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.utils.function_calling import convert_to_openai_tool

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Sequence

    from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGenerationChunk, ChatResult
    from langchain_core.runnables import Runnable
    from langchain_core.tools import BaseTool

__all__ = ("ToolCallingChatModel",)


class ToolCallingChatModel(BaseChatModel):
    """``bind_tools`` binds each tool in OpenAI's function form as the ``tools`` keyword of every call;
    ``tool_choice`` is accepted and not passed on (this service's clients have no such setting)."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._result(messages, kwargs)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        async for chunk in self._answer_chunks(messages, kwargs):
            yield chunk

    @abstractmethod
    def _result(self, messages: list[BaseMessage], options: dict[str, Any]) -> ChatResult:
        """The whole answer to ``messages``, called with ``options`` (the bound ``tools`` among them)."""

    @abstractmethod
    def _answer_chunks(
        self, messages: list[BaseMessage], options: dict[str, Any]
    ) -> AsyncIterator[ChatGenerationChunk]:
        """The answer to ``messages`` chunk by chunk, the last one with the counts and the tool calls."""
