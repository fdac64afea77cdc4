"""Token counts for providers that send no usage (llama.cpp, some Ollama and vLLM builds).

There is no tokenizer for an arbitrary server's model, so the counts are estimates, and every count made
here is marked ``usage_estimated``:

- text: one token per four characters, rounded up (the rule of thumb OpenAI documents for English);
- a conversation: the text of every message plus ``MESSAGE_OVERHEAD_TOKENS`` for each message's chat
  framing (role markers and separators) and ``REPLY_PRIMING_TOKENS`` for the assistant turn being opened;
- a streamed answer: OpenAI-compatible servers send at least one token per content chunk, so the number
  of content chunks is a lower bound; the estimate is the larger of that bound and the text estimate.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.llm.types import ChatMessage

__all__ = (
    "CHARS_PER_TOKEN",
    "MESSAGE_OVERHEAD_TOKENS",
    "REPLY_PRIMING_TOKENS",
    "estimate_input_tokens",
    "estimate_output_tokens",
    "estimate_text_tokens",
)

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4
REPLY_PRIMING_TOKENS = 3


def estimate_text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_input_tokens(messages: Sequence[ChatMessage]) -> int:
    framing = MESSAGE_OVERHEAD_TOKENS * len(messages) + REPLY_PRIMING_TOKENS
    return framing + sum(estimate_text_tokens(message.content) for message in messages)


def estimate_output_tokens(text: str, content_chunks: int = 0) -> int:
    return max(content_chunks, estimate_text_tokens(text))
