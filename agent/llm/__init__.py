"""Language models behind one seam: ``LLMClient`` (buffered) and ``StreamingLLMClient``."""

from __future__ import annotations

from agent.llm.errors import LLMError, ProviderRejected, ProviderStreamFailed, ProviderUnavailable
from agent.llm.factory import create_llm_client
from agent.llm.protocol import LLMClient, StreamingLLMClient
from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

__all__ = (
    "ChatMessage",
    "Chunk",
    "Completion",
    "LLMClient",
    "LLMError",
    "LLMParams",
    "ProviderRejected",
    "ProviderStreamFailed",
    "ProviderUnavailable",
    "StreamingLLMClient",
    "create_llm_client",
)
