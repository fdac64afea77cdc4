"""What goes into and comes out of a language model, independent of any provider."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ("ChatMessage", "Chunk", "Completion", "LLMParams")


class ChatMessage(msgspec.Struct, frozen=True):
    role: Literal["system", "user", "assistant"]
    content: str


class LLMParams(msgspec.Struct, frozen=True, kw_only=True):
    max_tokens: int = 512
    temperature: float = 0.0
    json_mode: bool = True
    """Ask for a JSON object where the provider supports it."""


class Completion(msgspec.Struct, frozen=True, kw_only=True):
    """A whole answer from a buffered call."""

    text: str
    model: str
    provider: str
    input_tokens: int
    output_tokens: int
    finish_reason: str
    usage_estimated: bool = False
    """True when the provider sent no usage and the counts were estimated locally."""


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """One piece of a streamed answer. Only the last chunk has ``finish_reason`` and the counts."""

    delta: str
    model: str
    provider: str
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    usage_estimated: bool = False
