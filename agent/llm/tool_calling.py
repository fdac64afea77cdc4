"""``ToolCallingChatModel``: a LangChain chat model whose tools are bound the way LangChain's providers bind them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.utils.function_calling import convert_to_openai_tool

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import AIMessage
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
