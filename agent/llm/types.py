"""What goes into and comes out of a language model, independent of any provider."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = ("ChatMessage", "Chunk", "Completion", "LLMParams", "StructuredOutput", "ToolCall", "ToolSpec")


class ChatMessage(msgspec.Struct, frozen=True):
    role: Literal["system", "user", "assistant"]
    content: str


class StructuredOutput(msgspec.Struct, frozen=True, kw_only=True):
    """The JSON schema an answer must follow, in the two dialects servers understand."""

    name: str
    strict: dict[str, Any]
    """For OpenAI's ``json_schema`` (strict) and Anthropic's ``output_config``: a root object, every
    property required, no length bounds."""
    guided: dict[str, Any]
    """For grammar-constrained decoding (llama.cpp): may branch at the root and bound lengths, so a small
    model can only write what the prompt's rules allow."""


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """An action offered to the model as a tool (a function call)."""

    name: str
    description: str
    parameters: dict[str, Any]
    """A JSON schema of the arguments."""


class ToolCall(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    arguments: dict[str, Any]


class LLMParams(msgspec.Struct, frozen=True, kw_only=True):
    max_tokens: int = 512
    temperature: float = 0.0
    json_mode: bool = True
    """Ask for a JSON object where the provider supports it."""
    structured: StructuredOutput | None = None
    """With ``json_mode``: the schema the JSON object must follow, where the provider takes one."""
    tools: tuple[ToolSpec, ...] = ()
    """Actions the model may call as tools, where the provider supports tool calls."""


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
    tool_calls: tuple[ToolCall, ...] = ()


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """One piece of a streamed answer. Only the last chunk has ``finish_reason`` and the counts."""

    delta: str
    model: str
    provider: str
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    usage_estimated: bool = False
    tool_calls: tuple[ToolCall, ...] = ()
    """Only on the last chunk: the tool calls the model made, whole."""
