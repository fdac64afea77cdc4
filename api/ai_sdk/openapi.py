"""How the AI SDK's routes appear in the OpenAPI document: the request ``DefaultChatTransport`` sends, and the UI
message stream (its parts described here, each one the ``ai`` package's ``UIMessageChunk``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar.openapi.spec import Example, OpenAPIHeader, OpenAPIMediaType, OpenAPIResponse, Operation, RequestBody
from litestar.openapi.spec.enums import OpenAPIType
from litestar.openapi.spec.schema import Schema

from api.negotiation import EVENT_STREAM

__all__ = ("AI_SDK_REQUEST_EXAMPLES", "AiSdkChatOperation", "AiSdkReconnectOperation")

_SESSION = "s_4f9c2a7d1e3b4c5a"
_RUN = "r_0c1d2e3f4a5b6c7d"
AI_SDK_REQUEST_EXAMPLES: dict[str, Any] = {
    "a question": {
        "id": _SESSION,
        "trigger": "submit-message",
        "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "How do I reset my password?"}]}],
    },
    "approve the refund": {
        "id": _SESSION,
        "trigger": "submit-message",
        "messageId": _RUN,
        "messages": [
            {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Please refund invoice INV-1001."}]},
            {
                "id": _RUN,
                "role": "assistant",
                "parts": [
                    {"type": "step-start"},
                    {
                        "type": "tool-issue_refund",
                        "toolCallId": "apv_9a8b7c6d5e4f3a2b",
                        "state": "approval-responded",
                        "input": {"summary": "Refund invoice INV-1001 ($42.00)"},
                        "approval": {"id": f"{_RUN}:apv_9a8b7c6d5e4f3a2b", "approved": True},
                    },
                ],
            },
        ],
    },
}
PARTS = (
    "`start` (`messageId`: the run's id), `start-step`/`finish-step` around each graph node, `text-start`/"
    "`text-delta`/`text-end` (the answer, token by token), `source-document` (each citation), `data-topology` and "
    "`data-node` (transient: the graph and node progress), `data-cost` (id `cost`: running totals), "
    "`tool-input-available` + `tool-approval-request` (an action waiting for approval; `approvalId` is "
    "`<run_id>:<approval_id>`), `tool-approval-response`, `tool-output-available` or `tool-output-denied` (the "
    "decision and its outcome), `error` (a failed run), `abort` (a cancelled one), `finish` (`finishReason`: "
    "`stop`, `content-filter` for a refusal, `tool-calls` for a pause, `error`), then `data: [DONE]`. Comment "
    "lines `: hb` are heartbeats. See docs/ai-sdk.md."
)
_STREAM_SCHEMA: dict[str, Any] = {
    "title": "AiSdkUIMessageStream",
    "description": (
        "The AI SDK's UI message stream (v1): one `data:` line per chunk, its JSON a `UIMessageChunk` of the `ai` "
        "package, and `data: [DONE]` last. Read whole, the body is text; read event by event, each event is the "
        "object."
    ),
    "oneOf": [
        {"type": "string", "contentMediaType": "text/event-stream"},
        {
            "type": "object",
            "required": ["data"],
            "properties": {
                "data": {
                    "type": "string",
                    "description": "A chunk as JSON, or `[DONE]`.",
                    "contentMediaType": "application/json",
                    "contentSchema": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": {"type": "string", "description": PARTS}},
                    },
                }
            },
        },
    ],
}
_EXAMPLE = {
    "the stream's first chunks": {
        "data": f'{{"type":"start","messageId":"{_RUN}","messageMetadata":{{"runId":"{_RUN}"}}}}',
    }
}


@dataclass
class _Verbatim(Schema):
    """The stream's schema as written above (Litestar's ``Schema`` has no ``contentSchema``)."""

    def to_schema(self) -> dict[str, Any]:
        return _STREAM_SCHEMA


def _stream(operation: Operation, description: str) -> None:
    ok = operation.responses["200"] if operation.responses else None
    assert isinstance(ok, OpenAPIResponse)
    ok.description = description
    ok.headers = {
        "x-vercel-ai-ui-message-stream": OpenAPIHeader(
            schema=Schema(type=OpenAPIType.STRING, const="v1"),
            description="Tells the AI SDK the body is a UI message stream.",
            required=True,
        )
    }
    ok.content = {
        EVENT_STREAM: OpenAPIMediaType(
            schema=_Verbatim(),
            examples={name: Example(value=value) for name, value in _EXAMPLE.items()},
        )
    }


@dataclass
class AiSdkChatOperation(Operation):
    """``POST /ai-sdk/chat``: what ``DefaultChatTransport`` sends in, the UI message stream out."""

    def __post_init__(self) -> None:
        body = self.request_body
        assert isinstance(body, RequestBody)
        body.content["application/json"].examples = {
            name: Example(value=value) for name, value in AI_SDK_REQUEST_EXAMPLES.items()
        }
        _stream(
            self,
            "The run as the AI SDK's UI message stream: a new turn from its start to its answer or its pause for "
            "approval, or an approval's run from the decision to its end. " + PARTS,
        )


@dataclass
class AiSdkReconnectOperation(Operation):
    """``GET /ai-sdk/chat/{id}/stream``: the session's active run, replayed from its start and followed."""

    def __post_init__(self) -> None:
        _stream(
            self,
            "The session's active run (running, or waiting for an approval) from its first event, pauses it went "
            "past included, then its live tail, as one assistant message (`resumeStream()` replays it). " + PARTS,
        )
