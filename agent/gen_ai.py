"""The OpenTelemetry GenAI semantic conventions, as this service uses them.

Spans: ``invoke_agent {agent}`` (one graph run), ``chat {model}`` (one model call), ``execute_tool {tool}``
(one tool or action). Attributes: ``gen_ai.operation.name``, ``gen_ai.provider.name``,
``gen_ai.request.model``, ``gen_ai.response.model``, ``gen_ai.usage.input_tokens`` and ``output_tokens``,
``gen_ai.agent.name``, ``gen_ai.conversation.id``, ``gen_ai.tool.name`` and ``gen_ai.tool.call.id``.
Messages, tool arguments and results are recorded only when
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``: a trace backend is not where a customer's
words should end up by default.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import msgspec
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as attributes

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = (
    "AGENT_ID",
    "AGENT_NAME",
    "CAPTURE_CONTENT_VARIABLE",
    "CONVERSATION_ID",
    "EVALUATION_EVENT",
    "EVALUATION_EXPLANATION",
    "EVALUATION_NAME",
    "EVALUATION_SCORE_LABEL",
    "EVALUATION_SCORE_VALUE",
    "INPUT_MESSAGES",
    "OPERATION_NAME",
    "OUTPUT_MESSAGES",
    "PROVIDER_NAME",
    "REQUEST_MAX_TOKENS",
    "REQUEST_MODEL",
    "REQUEST_TEMPERATURE",
    "RESPONSE_FINISH_REASONS",
    "RESPONSE_MODEL",
    "TOOL_CALL_ARGUMENTS",
    "TOOL_CALL_ID",
    "TOOL_CALL_RESULT",
    "TOOL_NAME",
    "TOOL_TYPE",
    "USAGE_INPUT_TOKENS",
    "USAGE_OUTPUT_TOKENS",
    "capture_message_content",
    "messages_attribute",
)

OPERATION_NAME = attributes.GEN_AI_OPERATION_NAME
PROVIDER_NAME = attributes.GEN_AI_PROVIDER_NAME
REQUEST_MODEL = attributes.GEN_AI_REQUEST_MODEL
REQUEST_MAX_TOKENS = attributes.GEN_AI_REQUEST_MAX_TOKENS
REQUEST_TEMPERATURE = attributes.GEN_AI_REQUEST_TEMPERATURE
RESPONSE_MODEL = attributes.GEN_AI_RESPONSE_MODEL
RESPONSE_FINISH_REASONS = attributes.GEN_AI_RESPONSE_FINISH_REASONS
USAGE_INPUT_TOKENS = attributes.GEN_AI_USAGE_INPUT_TOKENS
USAGE_OUTPUT_TOKENS = attributes.GEN_AI_USAGE_OUTPUT_TOKENS
AGENT_NAME = attributes.GEN_AI_AGENT_NAME
AGENT_ID = attributes.GEN_AI_AGENT_ID
CONVERSATION_ID = attributes.GEN_AI_CONVERSATION_ID
TOOL_NAME = attributes.GEN_AI_TOOL_NAME
TOOL_TYPE = attributes.GEN_AI_TOOL_TYPE
TOOL_CALL_ID = attributes.GEN_AI_TOOL_CALL_ID
TOOL_CALL_ARGUMENTS = attributes.GEN_AI_TOOL_CALL_ARGUMENTS
TOOL_CALL_RESULT = attributes.GEN_AI_TOOL_CALL_RESULT
INPUT_MESSAGES = attributes.GEN_AI_INPUT_MESSAGES
OUTPUT_MESSAGES = attributes.GEN_AI_OUTPUT_MESSAGES
EVALUATION_EVENT = "gen_ai.evaluation.result"
EVALUATION_NAME = attributes.GEN_AI_EVALUATION_NAME
EVALUATION_SCORE_VALUE = attributes.GEN_AI_EVALUATION_SCORE_VALUE
EVALUATION_SCORE_LABEL = attributes.GEN_AI_EVALUATION_SCORE_LABEL
EVALUATION_EXPLANATION = attributes.GEN_AI_EVALUATION_EXPLANATION

CAPTURE_CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def capture_message_content(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the operator opted in to message content in the spans."""
    env = os.environ if environ is None else environ
    return env.get(CAPTURE_CONTENT_VARIABLE, "").strip().lower() in ("true", "1", "yes")


def messages_attribute(messages: Iterable[tuple[str, str]], finish_reason: str | None = None) -> str:
    """``(role, text)`` pairs in the conventions' message form: a JSON array of ``{role, parts}``."""
    encoded: list[dict[str, Any]] = []
    for role, text in messages:
        message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": text}]}
        if finish_reason is not None:
            message["finish_reason"] = finish_reason
        encoded.append(message)
    return msgspec.json.encode(encoded).decode()
