"""The ``openai`` provider: any OpenAI-compatible ``/chat/completions`` server.

OpenAI, Groq, vLLM, llama.cpp and Ollama all speak it; their differences in the streamed chunks are
absorbed by ``openai_chunks``. ``base_url`` carries the version path (``https://api.openai.com/v1``).

Structured output is asked for with ``response_format``: ``{"type": "json_schema", "json_schema": {...,
"strict": true}}`` with the answer's schema (OpenAI, vLLM, llama.cpp's own server), or, for
llama-cpp-python's server, which knows only ``json_object``, ``{"type": "json_object", "schema": {...}}``
(its grammar then follows the schema); without a schema, plain ``json_object``. Actions go as ``tools``
where the client is told the server takes them; streamed ``tool_calls`` are assembled into whole calls on
the last chunk. Usage in streams is asked for with ``stream_options: {"include_usage": true}``. Some
servers reject one of these optional fields; on a 400 that names it the call is made once more without
it, and the client remembers not to send it again (a stream without usage gets estimated counts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import msgspec

from agent.llm._provider_client import ProviderClient
from agent.llm.errors import ProviderRejected, ProviderUnavailable
from agent.llm.estimate import estimate_input_tokens, estimate_output_tokens
from agent.llm.http_transport import ProviderHTTP
from agent.llm.openai_chunks import ToolCallDelta, Usage, assemble_tool_calls, read_chunks
from agent.llm.types import Completion

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    import httpx

    from agent.llm.http_transport import OpenStream, RetryPolicy
    from agent.llm.types import ChatMessage, Chunk, LLMParams

__all__ = ("DEFAULT_OPENAI_BASE_URL", "DEFAULT_OPENAI_MODEL", "OpenAICompatibleClient", "SchemaDialect")

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
_PATH = "/chat/completions"
_OPTIONAL_FIELDS = ("response_format", "stream_options", "tools")

SchemaDialect = Literal["json_schema", "json_object_schema", "none"]
"""How the server takes a schema: OpenAI's ``json_schema``, llama-cpp-python's ``json_object`` + ``schema``,
or not at all (plain JSON mode)."""


class _Message(msgspec.Struct, frozen=True):
    content: str | None = None
    tool_calls: list[ToolCallDelta] = msgspec.field(default_factory=list)


class _Choice(msgspec.Struct, frozen=True):
    message: _Message = msgspec.field(default_factory=_Message)
    finish_reason: str | None = None


class _CompletionBody(msgspec.Struct, frozen=True):
    choices: list[_Choice] = msgspec.field(default_factory=list)
    usage: Usage | None = None


class OpenAICompatibleClient(ProviderClient):
    """A streaming and buffered client of one model on one OpenAI-compatible server."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        model: str = DEFAULT_OPENAI_MODEL,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        provider: str = "openai",
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        json_mode: bool = True,
        schema_dialect: SchemaDialect = "json_schema",
        tool_calls: bool = True,
    ) -> None:
        """``json_mode=False`` never asks for ``response_format``; ``tool_calls=False`` never sends ``tools``
        (llama-cpp-python's server ignores them for most chat formats)."""
        headers = {"accept": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        super().__init__(
            model=model,
            http=ProviderHTTP(
                provider=provider,
                base_url=base_url,
                headers=headers,
                timeout_s=timeout_s,
                secret=api_key,
                retry=retry,
                transport=transport,
            ),
        )
        self._json_mode = json_mode
        self._schema_dialect = schema_dialect
        self._tool_calls = tool_calls
        self._dropped: set[str] = set()

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        while True:
            payload = self._payload(messages, params, stream=False)
            try:
                raw = await self._http.post_json(_PATH, payload)
                break
            except (ProviderRejected, ProviderUnavailable) as exc:
                if not self._drop_rejected_field(exc, payload):
                    raise
        body = self._body(raw, _CompletionBody)
        if not body.choices:
            raise ProviderUnavailable(f"{self.provider} answered without a choice")
        choice = body.choices[0]
        text = choice.message.content or ""
        calls = assemble_tool_calls(choice.message.tool_calls, self.provider)
        usage = body.usage
        return Completion(
            text=text,
            model=self._model,
            provider=self.provider,
            input_tokens=usage.prompt_tokens if usage else estimate_input_tokens(messages),
            output_tokens=usage.completion_tokens if usage else estimate_output_tokens(text),
            finish_reason=choice.finish_reason or "stop",
            usage_estimated=usage is None,
            tool_calls=calls,
        )

    def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        return self._chunks(
            lambda: self._open_stream(messages, params),
            lambda data: read_chunks(
                data, model=self._model, provider=self.provider, estimated_input_tokens=estimate_input_tokens(messages)
            ),
        )

    async def _open_stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> OpenStream:
        while True:
            payload = self._payload(messages, params, stream=True)
            try:
                return await self._http.open_stream(_PATH, payload)
            except (ProviderRejected, ProviderUnavailable) as exc:
                if not self._drop_rejected_field(exc, payload):
                    raise

    def _payload(self, messages: Sequence[ChatMessage], params: LLMParams, *, stream: bool) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
        }
        if params.json_mode and self._json_mode:
            payload["response_format"] = self._response_format(params)
        if params.tools and self._tool_calls:
            payload["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in params.tools
            ]
        if stream:
            payload["stream"] = True
            payload["stream_options"] = {"include_usage": True}
        for name in self._dropped:
            payload.pop(name, None)
        return payload

    def _response_format(self, params: LLMParams) -> dict[str, Any]:
        schema = params.structured
        if schema is None or self._schema_dialect == "none":
            return {"type": "json_object"}
        if self._schema_dialect == "json_object_schema":
            return {"type": "json_object", "schema": schema.guided}
        return {"type": "json_schema", "json_schema": {"name": schema.name, "strict": True, "schema": schema.strict}}

    def _drop_rejected_field(self, exc: ProviderRejected | ProviderUnavailable, payload: dict[str, Any]) -> bool:
        """Whether ``exc`` rejects an optional field of ``payload`` by name (a 400 or 422; llama-cpp-python
        answers 500 to a ``response_format`` it does not know); if so, the call is made again without it.
        A rejected ``json_schema`` is first tried again as llama-cpp-python's ``json_object`` + ``schema``."""
        if exc.status_code not in (400, 422, 500):
            return False
        said = f"{exc} {exc.body}"
        rejected = next((name for name in _OPTIONAL_FIELDS if name in payload and name in said), None)
        if rejected is None:
            return False
        if (
            rejected == "response_format"
            and self._schema_dialect == "json_schema"
            and "schema" in str(payload[rejected])
        ):
            self._schema_dialect = "json_object_schema"
            return True
        self._dropped.add(rejected)
        return True
