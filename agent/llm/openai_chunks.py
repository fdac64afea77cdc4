"""The one reader of OpenAI-style streamed chat completions, shared by every OpenAI-compatible path.

A stream is SSE whose ``data`` is a ``chat.completion.chunk`` object or the sentinel ``[DONE]``::

    data: {"choices": [{"index": 0, "delta": {"content": "Hel"}, "finish_reason": null}]}
    data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    data: {"choices": [], "usage": {"prompt_tokens": 31, "completion_tokens": 9}}
    data: [DONE]

Servers differ at the edges, and each difference is tolerated here rather than in an adapter: a role-only
first delta, usage on the finishing chunk or on every chunk (vLLM), usage under ``x_groq`` (Groq), no usage
at all (llama.cpp: counts are then estimated), no ``[DONE]`` after the finish reason, an ``error`` object
sent in place of a chunk. Tool calls arrive as ``delta.tool_calls`` fragments (a name, then pieces of the
arguments' JSON, keyed by ``index``) and leave as whole ``ToolCall`` s on the last chunk. ``read_chunks``
turns the payloads into our ``Chunk`` contract: content chunks with zero counts, then exactly one last
chunk with the finish reason and the turn's counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent.llm.errors import ProviderStreamFailed
from agent.llm.estimate import estimate_output_tokens
from agent.llm.types import Chunk, ToolCall

if TYPE_CHECKING:
    from collections.abc import AsyncIterable, AsyncIterator

__all__ = ("DONE", "ParsedChunk", "ToolCallDelta", "Usage", "assemble_tool_calls", "parse_chunk", "read_chunks")

DONE = "[DONE]"
_DETAIL_CHARS = 200


class Usage(msgspec.Struct, frozen=True):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _FunctionDelta(msgspec.Struct, frozen=True):
    name: str | None = None
    arguments: str | None = None


class ToolCallDelta(msgspec.Struct, frozen=True):
    """A fragment of a tool call (streamed), or a whole one (a buffered message)."""

    index: int = 0
    function: _FunctionDelta = msgspec.field(default_factory=_FunctionDelta)

    @classmethod
    def of(cls, index: int, *, name: str | None = None, arguments: str | None = None) -> ToolCallDelta:
        return cls(index=index, function=_FunctionDelta(name=name, arguments=arguments))


class _Delta(msgspec.Struct, frozen=True):
    content: str | None = None
    tool_calls: list[ToolCallDelta] = msgspec.field(default_factory=list)


class _Choice(msgspec.Struct, frozen=True):
    index: int = 0
    delta: _Delta = msgspec.field(default_factory=_Delta)
    finish_reason: str | None = None


class _GroqExtra(msgspec.Struct, frozen=True):
    usage: Usage | None = None


class _Payload(msgspec.Struct, frozen=True):
    choices: list[_Choice] = msgspec.field(default_factory=list)
    usage: Usage | None = None
    x_groq: _GroqExtra | None = None
    error: Any = None


_decoder = msgspec.json.Decoder(_Payload)


class ParsedChunk(msgspec.Struct, frozen=True, kw_only=True):
    """What one ``data`` payload says: new content, the finish reason, usage, or the end."""

    content: str = ""
    finish_reason: str | None = None
    usage: Usage | None = None
    done: bool = False
    tool_calls: list[ToolCallDelta] = msgspec.field(default_factory=list)


def parse_chunk(data: str, provider: str) -> ParsedChunk:
    """One ``data`` payload; a malformed one or a reported error raises ``ProviderStreamFailed``."""
    if data.strip() == DONE:
        return ParsedChunk(done=True)
    try:
        payload = _decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise ProviderStreamFailed(f"{provider} sent a malformed stream chunk ({exc})") from None
    if payload.error is not None:
        raise ProviderStreamFailed(f"{provider} reported an error mid-stream: {_error_message(payload.error)}")
    choice = next((c for c in payload.choices if c.index == 0), None)
    usage = payload.usage or (payload.x_groq.usage if payload.x_groq is not None else None)
    if choice is None:
        return ParsedChunk(usage=usage)
    return ParsedChunk(
        content=choice.delta.content or "",
        finish_reason=choice.finish_reason,
        usage=usage,
        tool_calls=choice.delta.tool_calls,
    )


def assemble_tool_calls(fragments: list[ToolCallDelta], provider: str) -> tuple[ToolCall, ...]:
    """Whole calls from fragments, in ``index`` order. Arguments that are not a JSON object count as none
    (the action then asks for what it needs) rather than failing the turn."""
    names: dict[int, str] = {}
    arguments: dict[int, list[str]] = {}
    for fragment in fragments:
        if fragment.function.name:
            names.setdefault(fragment.index, fragment.function.name)
        arguments.setdefault(fragment.index, []).append(fragment.function.arguments or "")
    calls: list[ToolCall] = []
    for index in sorted(names):
        try:
            decoded = msgspec.json.decode("".join(arguments.get(index, [])) or "{}")
        except msgspec.DecodeError:
            decoded = {}
        calls.append(ToolCall(name=names[index], arguments=decoded if isinstance(decoded, dict) else {}))
    return tuple(calls)


async def read_chunks(
    data: AsyncIterable[str], *, model: str, provider: str, estimated_input_tokens: int
) -> AsyncIterator[Chunk]:
    """Our chunks from the ``data`` payloads of one streamed completion.

    Content goes out as soon as it arrives; the last chunk (empty ``delta``) waits for the end of the
    stream, since usage follows the finish reason. A stream that ends before the model finished raises
    ``ProviderStreamFailed``.
    """
    finish_reason: str | None = None
    usage: Usage | None = None
    text: list[str] = []
    calls: list[ToolCallDelta] = []
    content_chunks = 0
    async for payload in data:
        parsed = parse_chunk(payload, provider)
        if parsed.done:
            finish_reason = finish_reason or "stop"
            break
        usage = parsed.usage or usage
        calls += parsed.tool_calls
        if parsed.content:
            text.append(parsed.content)
            content_chunks += 1
            yield Chunk(delta=parsed.content, model=model, provider=provider)
        finish_reason = parsed.finish_reason or finish_reason
    if finish_reason is None:
        raise ProviderStreamFailed(f"{provider}'s stream ended before the model finished its answer")
    tool_calls = assemble_tool_calls(calls, provider)
    if usage is not None:
        yield Chunk(
            delta="",
            model=model,
            provider=provider,
            finish_reason=finish_reason,
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            tool_calls=tool_calls,
        )
        return
    yield Chunk(
        delta="",
        model=model,
        provider=provider,
        finish_reason=finish_reason,
        input_tokens=estimated_input_tokens,
        output_tokens=estimate_output_tokens("".join(text), content_chunks),
        usage_estimated=True,
        tool_calls=tool_calls,
    )


def _error_message(error: object) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    return str(message)[:_DETAIL_CHARS]
