"""The Anthropic adapter against a real fake server on loopback."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import pytest

from agent.llm import AnthropicClient, LLMParams, ProviderRejected, ProviderStreamFailed, StreamingLLMClient
from agent.llm.anthropic import ANTHROPIC_VERSION, conversation
from agent.llm.types import ChatMessage, StructuredOutput, ToolCall, ToolSpec
from tests.agent.llm.conftest import API_KEY, MESSAGES
from tests.agent.llm.fake_server import FakeProviderServer, Reply, anthropic_stream, json_reply

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from agent.llm.http_transport import RetryPolicy
    from agent.llm.types import Chunk

PARAMS = LLMParams(max_tokens=64)
PIECES = ['{"kind": "answer", "text": ', '"Open Settings."}']


@pytest.fixture
async def make_client(retry: RetryPolicy) -> AsyncIterator[Callable[[str], AnthropicClient]]:
    clients: list[AnthropicClient] = []

    def make(base_url: str) -> AnthropicClient:
        client = AnthropicClient(api_key=API_KEY, base_url=base_url, model="claude-haiku-4-5", retry=retry)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


def message_body(text: str) -> dict[str, object]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 40, "output_tokens": 64, "cache_read_input_tokens": 2},
    }


async def test_the_buffered_call_sends_the_messages_api_request_and_reads_the_answer(make_client) -> None:
    async with FakeProviderServer([json_reply(message_body("Open Settings."))]) as server:
        completion = await make_client(server.base_url).complete(MESSAGES, PARAMS)

    assert completion.text == "Open Settings."
    assert (completion.input_tokens, completion.output_tokens) == (42, 64)
    assert (completion.finish_reason, completion.provider, completion.model) == (
        "length",
        "anthropic",
        "claude-haiku-4-5",
    )
    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == API_KEY
    assert request.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in request.headers
    assert request.json == {
        "model": "claude-haiku-4-5",
        "max_tokens": 64,
        "temperature": 0.0,
        "system": MESSAGES[0].content,
        "messages": [{"role": "user", "content": MESSAGES[1].content}],
    }


async def test_the_stream_reads_the_typed_events(make_client) -> None:
    async with FakeProviderServer([Reply(events=anthropic_stream(PIECES, usage=(25, 9)))]) as server:
        client = make_client(server.base_url)
        chunks = [chunk async for chunk in client.stream(MESSAGES, PARAMS)]

    assert isinstance(client, StreamingLLMClient)
    assert [c.delta for c in chunks] == [*PIECES, ""]
    assert [c.finish_reason for c in chunks] == [None, None, "stop"]
    assert (chunks[-1].input_tokens, chunks[-1].output_tokens) == (25, 9)
    assert server.requests[0].json["stream"] is True


async def test_an_error_event_mid_stream_fails_the_stream(make_client) -> None:
    events = anthropic_stream(PIECES)[:4]
    events.append(
        b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    )
    received: list[Chunk] = []

    async def consume(client: AnthropicClient) -> None:
        async for chunk in client.stream(MESSAGES, PARAMS):
            received.append(chunk)

    async with FakeProviderServer([Reply(events=events)]) as server:
        with pytest.raises(ProviderStreamFailed, match="Overloaded"):
            await consume(make_client(server.base_url))

    assert [c.delta for c in received] == PIECES[:1]


async def test_a_stream_without_message_stop_fails(make_client) -> None:
    async with FakeProviderServer([Reply(events=anthropic_stream(PIECES)[:-1])]) as server:
        with pytest.raises(ProviderStreamFailed, match="ended before"):
            _ = [chunk async for chunk in make_client(server.base_url).stream(MESSAGES, PARAMS)]


async def test_a_bad_key_is_rejected_without_repeating_it(make_client) -> None:
    body = {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {API_KEY}"}}
    async with FakeProviderServer([json_reply(body, status=401)]) as server:
        with pytest.raises(ProviderRejected, match="invalid x-api-key") as failure:
            await make_client(server.base_url).complete(MESSAGES, PARAMS)

    assert API_KEY not in str(failure.value)
    assert len(server.requests) == 1


def test_the_conversation_starts_with_the_user_and_alternates() -> None:
    messages = [
        ChatMessage("system", "rules"),
        ChatMessage("assistant", "Earlier answer."),
        ChatMessage("user", "First."),
        ChatMessage("user", "Second."),
    ]
    assert conversation(messages) == [
        {"role": "user", "content": "(conversation continues)"},
        {"role": "assistant", "content": "Earlier answer."},
        {"role": "user", "content": "First.\n\nSecond."},
    ]


STRUCTURED = StructuredOutput(name="support_answer", strict={"type": "object"}, guided={"anyOf": []})
TOOL = ToolSpec(name="issue_refund", description="Refund an invoice.", parameters={"type": "object"})
WITH_SCHEMA = LLMParams(max_tokens=64, structured=STRUCTURED, tools=(TOOL,))


def event(kind: str, data: dict[str, object]) -> bytes:
    return f"event: {kind}\n".encode() + b"data: " + msgspec.json.encode({"type": kind, **data}) + b"\n\n"


async def test_the_schema_goes_as_output_config_and_actions_as_tools(make_client) -> None:
    async with FakeProviderServer([json_reply(message_body("{}"))]) as server:
        await make_client(server.base_url).complete(MESSAGES, WITH_SCHEMA)

    payload = server.requests[0].json
    assert payload["output_config"] == {"format": {"type": "json_schema", "schema": {"type": "object"}}}
    assert payload["tools"] == [
        {"name": "issue_refund", "description": "Refund an invoice.", "input_schema": {"type": "object"}}
    ]


async def test_a_model_without_structured_outputs_gets_the_call_again_without_it(make_client) -> None:
    rejected = json_reply({"error": {"message": "output_config: not supported for this model"}}, status=400)
    async with FakeProviderServer([rejected, json_reply(message_body("Open Settings."))]) as server:
        client = make_client(server.base_url)
        first = await client.complete(MESSAGES, WITH_SCHEMA)
        second = await client.complete(MESSAGES, WITH_SCHEMA)

    assert first.text == second.text == "Open Settings."
    assert ["output_config" in request.json for request in server.requests] == [True, False, False]


async def test_a_streamed_tool_use_arrives_whole_on_the_last_chunk(make_client) -> None:
    message = {"id": "msg_1", "role": "assistant", "content": [], "usage": {"input_tokens": 20, "output_tokens": 1}}
    events = [
        event("message_start", {"message": message}),
        event(
            "content_block_start",
            {"index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "issue_refund", "input": {}}},
        ),
        event(
            "content_block_delta", {"index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"invoice_id"'}}
        ),
        event(
            "content_block_delta", {"index": 0, "delta": {"type": "input_json_delta", "partial_json": ': "INV-1001"}'}}
        ),
        event("content_block_stop", {"index": 0}),
        event("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}}),
        event("message_stop", {}),
    ]
    async with FakeProviderServer([Reply(events=events)]) as server:
        chunks = [chunk async for chunk in make_client(server.base_url).stream(MESSAGES, WITH_SCHEMA)]

    assert chunks[-1].tool_calls == (ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"}),)
    assert chunks[-1].finish_reason == "tool_calls"


async def test_a_buffered_tool_use_is_read(make_client) -> None:
    body = {
        **message_body(""),
        "content": [{"type": "tool_use", "id": "t1", "name": "issue_refund", "input": {"invoice_id": "INV-1001"}}],
    }
    async with FakeProviderServer([json_reply(body)]) as server:
        completion = await make_client(server.base_url).complete(MESSAGES, WITH_SCHEMA)

    assert completion.tool_calls == (ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"}),)
