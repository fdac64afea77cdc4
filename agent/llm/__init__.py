"""Language models behind one seam: ``LLMClient`` (buffered) and ``StreamingLLMClient``."""

from __future__ import annotations

from agent.llm.anthropic import AnthropicClient
from agent.llm.errors import LLMError, ProviderRejected, ProviderStreamFailed, ProviderUnavailable
from agent.llm.factory import close_llm_client, create_llm_client
from agent.llm.fallback import FallbackLLM
from agent.llm.local_autostart import local_model_served
from agent.llm.openai import OpenAICompatibleClient
from agent.llm.protocol import LLMClient, StreamingLLMClient
from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

__all__ = (
    "AnthropicClient",
    "ChatMessage",
    "Chunk",
    "Completion",
    "FallbackLLM",
    "LLMClient",
    "LLMError",
    "LLMParams",
    "OpenAICompatibleClient",
    "ProviderRejected",
    "ProviderStreamFailed",
    "ProviderUnavailable",
    "StreamingLLMClient",
    "close_llm_client",
    "create_llm_client",
    "local_model_served",
)
