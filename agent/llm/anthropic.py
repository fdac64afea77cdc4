"""The ``anthropic`` provider: Anthropic's Messages API over httpx, buffered and streamed.

The Messages API takes the system prompt as a top-level field and wants the conversation to start with a
user turn and alternate. Structured output goes as ``output_config: {"format": {"type": "json_schema",
"schema": ...}}`` (the strict dialect of the answer's schema), actions as ``tools`` with an
``input_schema``; a server that rejects ``output_config`` (a model without structured outputs) gets the
call once more without it, and the client remembers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from agent.llm._provider_client import ProviderClient
from agent.llm.anthropic_events import AnthropicUsage, finish_reason, read_events
from agent.llm.errors import ProviderRejected
from agent.llm.http_transport import ProviderHTTP
from agent.llm.types import Completion, ToolCall

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

    import httpx

    from agent.llm.http_transport import RetryPolicy
    from agent.llm.types import ChatMessage, Chunk, LLMParams

__all__ = ("ANTHROPIC_VERSION", "DEFAULT_ANTHROPIC_BASE_URL", "DEFAULT_ANTHROPIC_MODEL", "AnthropicClient")

_T = TypeVar("_T")
DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"
DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
ANTHROPIC_VERSION = "2023-06-01"
_PATH = "/messages"


class _Block(msgspec.Struct, frozen=True):
    type: str
    text: str | None = None
    name: str | None = None
    input: dict[str, Any] | None = None


class _MessageBody(msgspec.Struct, frozen=True):
    content: list[_Block] = msgspec.field(default_factory=list)
    stop_reason: str | None = None
    usage: AnthropicUsage = msgspec.field(default_factory=AnthropicUsage)


class AnthropicClient(ProviderClient):
    """A streaming and buffered client of one Claude model."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = DEFAULT_ANTHROPIC_BASE_URL,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(
            model=model,
            http=ProviderHTTP(
                provider="anthropic",
                base_url=base_url,
                headers={"x-api-key": api_key, "anthropic-version": ANTHROPIC_VERSION, "accept": "application/json"},
                timeout_s=timeout_s,
                secret=api_key,
                retry=retry,
                transport=transport,
            ),
        )
        self._structured = True

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        raw = await self._call(lambda: self._http.post_json(_PATH, self._payload(messages, params, stream=False)))
        body = self._body(raw, _MessageBody)
        return Completion(
            text="".join(block.text or "" for block in body.content if block.type == "text"),
            model=self._model,
            provider=self.provider,
            input_tokens=body.usage.all_input_tokens,
            output_tokens=body.usage.output_tokens or 0,
            finish_reason=finish_reason(body.stop_reason),
            tool_calls=tuple(
                ToolCall(name=block.name or "", arguments=block.input or {})
                for block in body.content
                if block.type == "tool_use"
            ),
        )

    def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        return self._chunks(
            lambda: self._call(lambda: self._http.open_stream(_PATH, self._payload(messages, params, stream=True))),
            lambda data: read_events(data, model=self._model, provider=self.provider),
        )

    async def _call(self, attempt: Callable[[], Awaitable[_T]]) -> _T:
        """``attempt()``, once more without ``output_config`` if the server rejects it."""
        try:
            return await attempt()
        except ProviderRejected as exc:
            if exc.status_code != 400 or not self._structured or "output_config" not in str(exc):
                raise
            self._structured = False
            return await attempt()

    def _payload(self, messages: Sequence[ChatMessage], params: LLMParams, *, stream: bool) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        payload: dict[str, Any] = {
            "model": self._model,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "messages": conversation(messages),
        }
        if system:
            payload["system"] = system
        if params.json_mode and params.structured is not None and self._structured:
            payload["output_config"] = {"format": {"type": "json_schema", "schema": params.structured.strict}}
        if params.tools:
            payload["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in params.tools
            ]
        if stream:
            payload["stream"] = True
        return payload


def conversation(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """The non-system messages as the Messages API wants them: starting with the user, roles alternating
    (consecutive messages of one role are joined)."""
    turns: list[dict[str, str]] = []
    for message in messages:
        if message.role == "system":
            continue
        if turns and turns[-1]["role"] == message.role:
            turns[-1]["content"] += "\n\n" + message.content
        else:
            turns.append({"role": message.role, "content": message.content})
    if turns and turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "(conversation continues)"})
    return turns
