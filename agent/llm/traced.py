"""Each model call as a ``chat {model}`` span of the OpenTelemetry GenAI conventions.

The span is a child of whatever span is current (the node's, for the support agent), carries the provider,
the requested and answering model, the token counts and the finish reason, and the messages only when the
operator opted in (``agent.gen_ai.capture_message_content``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opentelemetry.trace import SpanKind, Status, StatusCode

from agent import gen_ai
from agent.llm.protocol import StreamingLLMClient
from agent.llm.streaming import stream_answer
from agent.llm.wrapper import LLMWrapper

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from opentelemetry.trace import Span, Tracer

    from agent.llm.protocol import LLMClient
    from agent.llm.types import ChatMessage, Chunk, Completion, LLMParams

__all__ = ("TracedLLM", "TracedStreamingLLM", "traced")


class TracedLLM(LLMWrapper):
    def __init__(self, inner: LLMClient, tracer: Tracer, *, capture_content: bool | None = None) -> None:
        super().__init__(inner)
        self.tracer = tracer
        self.capture_content = gen_ai.capture_message_content() if capture_content is None else capture_content

    def _start(self, messages: Sequence[ChatMessage], params: LLMParams) -> Span:
        span = self.tracer.start_span(
            f"chat {self.model}",
            kind=SpanKind.CLIENT,
            attributes={
                gen_ai.OPERATION_NAME: "chat",
                gen_ai.PROVIDER_NAME: self.provider,
                gen_ai.REQUEST_MODEL: self.model,
                gen_ai.REQUEST_MAX_TOKENS: params.max_tokens,
                gen_ai.REQUEST_TEMPERATURE: params.temperature,
            },
        )
        if self.capture_content:
            span.set_attribute(gen_ai.INPUT_MESSAGES, gen_ai.messages_attribute((m.role, m.content) for m in messages))
        return span

    def _finish(self, span: Span, answer: Completion | Chunk, text: str) -> None:
        """What the last chunk (or the whole completion) says of the answer."""
        finish_reason = answer.finish_reason or "stop"
        span.set_attribute(gen_ai.RESPONSE_MODEL, answer.model)
        span.set_attribute(gen_ai.RESPONSE_FINISH_REASONS, [finish_reason])
        span.set_attribute(gen_ai.USAGE_INPUT_TOKENS, answer.input_tokens)
        span.set_attribute(gen_ai.USAGE_OUTPUT_TOKENS, answer.output_tokens)
        if self.capture_content:
            span.set_attribute(gen_ai.OUTPUT_MESSAGES, gen_ai.messages_attribute([("assistant", text)], finish_reason))

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        span = self._start(messages, params)
        try:
            completion = await self.inner.complete(messages, params)
        except BaseException as exc:
            _failed(span, exc)
            raise
        self._finish(span, completion, completion.text)
        span.end()
        return completion


class TracedStreamingLLM(TracedLLM):
    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        """The counts are recorded as the last chunk passes: a caller may stop reading right after it."""
        span = self._start(messages, params)
        text: list[str] = []
        finished = False
        try:
            async for chunk in stream_answer(self.inner, messages, params):
                text.append(chunk.delta)
                if chunk.finish_reason is not None:
                    finished = True
                    self._finish(span, chunk, "".join(text))
                yield chunk
        except BaseException as exc:
            if not (finished and isinstance(exc, GeneratorExit)):
                _failed(span, exc)
                raise
        span.end()


def traced(client: LLMClient, tracer: Tracer, *, capture_content: bool | None = None) -> TracedLLM:
    """``client`` with a span per call, streaming when the client streams."""
    if isinstance(client, StreamingLLMClient):
        return TracedStreamingLLM(client, tracer, capture_content=capture_content)
    return TracedLLM(client, tracer, capture_content=capture_content)


def _failed(span: Span, exc: BaseException) -> None:
    span.set_attribute("error.type", type(exc).__name__)
    span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
    span.end()
