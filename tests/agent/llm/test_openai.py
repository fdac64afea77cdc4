"""The OpenAI-compatible adapter against a real fake server on loopback (httpx is not mocked)."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import msgspec
import pytest

from agent.llm import LLMParams, OpenAICompatibleClient, ProviderRejected, ProviderStreamFailed, ProviderUnavailable
from agent.llm.estimate import estimate_input_tokens
from agent.llm.http_transport import RetryPolicy
from agent.llm.protocol import StreamingLLMClient
from agent.llm.types import StructuredOutput, ToolCall, ToolSpec
from tests.agent.llm.conftest import API_KEY, MESSAGES
from tests.agent.llm.fake_server import FakeProviderServer, Received, Reply, json_reply, openai_chunk, openai_stream

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from agent.llm.types import Chunk
    from tests.agent.llm.conftest import Sleeps

PARAMS = LLMParams(max_tokens=64, temperature=0.0, json_mode=True)
PIECES = ['{"kind": "answer", ', '"text": "Open Settings', ' \\u2192 Security."}']
ANSWER = "".join(PIECES)


@pytest.fixture
async def make_client(retry: RetryPolicy) -> AsyncIterator[Callable[[str], OpenAICompatibleClient]]:
    clients: list[OpenAICompatibleClient] = []

    def make(base_url: str) -> OpenAICompatibleClient:
        client = OpenAICompatibleClient(base_url=base_url, model="gpt-4o-mini", api_key=API_KEY, retry=retry)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


async def collect(client: OpenAICompatibleClient, into: list[Chunk] | None = None) -> list[Chunk]:
    chunks = [] if into is None else into
    async for chunk in client.stream(MESSAGES, PARAMS):
        chunks.append(chunk)
    return chunks


def completion_body(text: str, usage: tuple[int, int] | None = (30, 12)) -> dict[str, object]:
    body: dict[str, object] = {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
    return body


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_streams_content_as_it_comes_then_one_last_chunk_with_the_reported_usage(make_client) -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES, usage=(21, 7)))]) as server:
        client = make_client(server.base_url)
        chunks = await collect(client)

    assert isinstance(client, StreamingLLMClient)
    assert [c.delta for c in chunks] == [*PIECES, ""]
    assert [c.finish_reason for c in chunks] == [None, None, None, "stop"]
    assert [(c.input_tokens, c.output_tokens) for c in chunks[:-1]] == [(0, 0)] * 3
    last = chunks[-1]
    assert (last.input_tokens, last.output_tokens, last.usage_estimated) == (21, 7, False)
    assert {(c.model, c.provider) for c in chunks} == {("gpt-4o-mini", "openai")}


async def test_the_request_asks_for_a_stream_with_usage_in_json_mode(make_client) -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES))]) as server:
        await collect(make_client(server.base_url))

    [request] = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.json == {
        "model": "gpt-4o-mini",
        "messages": [{"role": m.role, "content": m.content} for m in MESSAGES],
        "max_tokens": 64,
        "temperature": 0.0,
        "response_format": {"type": "json_object"},
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_a_client_without_json_mode_never_asks_for_it(retry: RetryPolicy) -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES))]) as server:
        client = OpenAICompatibleClient(base_url=server.base_url, model="m", retry=retry, json_mode=False)
        try:
            await collect(client)
        finally:
            await client.aclose()

    [request] = server.requests
    assert "response_format" not in request.json
    assert PARAMS.json_mode


async def test_a_stream_without_usage_gets_estimated_counts(make_client) -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES, usage=None))]) as server:
        chunks = await collect(make_client(server.base_url))

    last = chunks[-1]
    assert last.usage_estimated is True
    assert last.finish_reason == "stop"
    assert last.input_tokens == estimate_input_tokens(MESSAGES) > 0
    assert last.output_tokens == max(len(PIECES), -(-len(ANSWER) // 4))


async def test_a_stream_that_ends_after_the_finish_reason_without_done_is_complete(make_client) -> None:
    events = openai_stream(PIECES, usage=None, finish_reason="length", done=False)
    async with FakeProviderServer([Reply(events=events)]) as server:
        chunks = await collect(make_client(server.base_url))

    assert chunks[-1].finish_reason == "length"
    assert "".join(c.delta for c in chunks) == ANSWER


async def test_usage_on_the_finishing_chunk_and_under_x_groq_are_read(make_client) -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2}
    events = [
        openai_chunk("Hi"),
        openai_chunk(finish_reason="stop", x_groq={"usage": usage}),
        b"data: [DONE]\n\n",
    ]
    async with FakeProviderServer([Reply(events=events)]) as server:
        chunks = await collect(make_client(server.base_url))

    assert (chunks[-1].input_tokens, chunks[-1].output_tokens, chunks[-1].usage_estimated) == (5, 2, False)


async def test_connection_refused_then_success_on_the_second_attempt(make_client, sleeps: Sleeps) -> None:
    server = FakeProviderServer([Reply(events=openai_stream(PIECES))], port=unused_port())
    client = make_client(server.base_url)

    async def start_server_while_backing_off(seconds: float) -> None:
        sleeps.append(seconds)
        await server.start()

    client._http._retry = RetryPolicy(attempts=3, base_delay_s=0.5, sleep=start_server_while_backing_off)
    try:
        chunks = await collect(client)
    finally:
        await server.stop()

    assert sleeps == [0.5]
    assert len(server.requests) == 1
    assert "".join(c.delta for c in chunks) == ANSWER


async def test_connection_refused_on_every_attempt_is_unavailable(make_client, sleeps: Sleeps) -> None:
    client = make_client(f"http://127.0.0.1:{unused_port()}/v1")

    with pytest.raises(ProviderUnavailable, match="could not be reached") as failure:
        await collect(client)

    assert sleeps == [0.5, 1.0]
    assert failure.value.retryable is True


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_throttling_and_server_errors_are_retried_then_unavailable(make_client, sleeps, status: int) -> None:
    reply = json_reply({"error": {"message": "slow down"}}, status=status)
    async with FakeProviderServer([reply]) as server:
        client = make_client(server.base_url)
        with pytest.raises(ProviderUnavailable, match=f"HTTP {status}: slow down") as streamed:
            await collect(client)
        with pytest.raises(ProviderUnavailable) as buffered:
            await client.complete(MESSAGES, PARAMS)

    assert len(server.requests) == 6
    assert sleeps == [0.5, 1.0, 0.5, 1.0]
    assert streamed.value.status_code == buffered.value.status_code == status


@pytest.mark.parametrize("status", [429, 500])
async def test_a_retry_after_an_error_status_can_succeed(make_client, sleeps, status: int) -> None:
    replies = [json_reply({"error": {"message": "busy"}}, status=status), Reply(events=openai_stream(PIECES))]
    async with FakeProviderServer(replies) as server:
        chunks = await collect(make_client(server.base_url))

    assert sleeps == [0.5]
    assert "".join(c.delta for c in chunks) == ANSWER


async def test_retry_after_is_honoured_up_to_the_cap(make_client, sleeps: Sleeps) -> None:
    replies = [json_reply({}, status=429, headers={"retry-after": "3"}), json_reply({}, status=429)]
    async with FakeProviderServer(replies) as server:
        with pytest.raises(ProviderUnavailable):
            await make_client(server.base_url).complete(MESSAGES, PARAMS)

    assert sleeps == [3.0, 1.0]


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_a_rejection_is_not_retried_and_does_not_repeat_the_key(make_client, sleeps, status: int) -> None:
    message = f"Incorrect API key provided: {API_KEY}. Or was it sk-proj-abc***wxyz?"
    async with FakeProviderServer([json_reply({"error": {"message": message}}, status=status)]) as server:
        with pytest.raises(ProviderRejected) as failure:
            await collect(make_client(server.base_url))

    text = str(failure.value)
    assert len(server.requests) == 1
    assert sleeps == []
    assert failure.value.retryable is False
    assert f"HTTP {status}" in text
    assert "Incorrect API key provided" in text
    assert API_KEY not in text
    assert "sk-proj" not in text
    assert "Bearer" not in text


async def test_a_drop_mid_stream_fails_the_stream_without_a_retry(make_client, sleeps: Sleeps) -> None:
    received: list[Chunk] = []
    async with FakeProviderServer([Reply(events=openai_stream(PIECES), drop_after=3)]) as server:
        with pytest.raises(ProviderStreamFailed, match="broke off") as failure:
            await collect(make_client(server.base_url), received)

    assert [c.delta for c in received] == PIECES[:2]
    assert len(server.requests) == 1
    assert sleeps == []
    assert failure.value.retryable is True


async def test_a_malformed_chunk_fails_the_stream(make_client) -> None:
    events = [openai_chunk("Hel"), b"data: {not json\n\n", openai_chunk("lo", "stop")]
    received: list[Chunk] = []
    async with FakeProviderServer([Reply(events=events)]) as server:
        with pytest.raises(ProviderStreamFailed, match="malformed"):
            await collect(make_client(server.base_url), received)

    assert [c.delta for c in received] == ["Hel"]
    assert len(server.requests) == 1


async def test_a_chunk_of_the_wrong_shape_is_malformed(make_client) -> None:
    events = [b'data: {"choices": [{"index": 0, "delta": {"content": 42}}]}\n\n']
    async with FakeProviderServer([Reply(events=events)]) as server:
        with pytest.raises(ProviderStreamFailed, match="malformed"):
            await collect(make_client(server.base_url))


async def test_a_stream_that_ends_before_the_model_finished_fails(make_client) -> None:
    async with FakeProviderServer([Reply(events=[openai_chunk("Hel"), openai_chunk("lo")])]) as server:
        with pytest.raises(ProviderStreamFailed, match="ended before"):
            await collect(make_client(server.base_url))


async def test_an_error_sent_in_the_stream_fails_it(make_client) -> None:
    events = [openai_chunk("Hel"), b'data: {"error": {"message": "model overloaded"}}\n\n']
    async with FakeProviderServer([Reply(events=events)]) as server:
        with pytest.raises(ProviderStreamFailed, match="model overloaded"):
            await collect(make_client(server.base_url))


def rejects(field: str) -> Callable[[Received], Reply]:
    def reply(request: Received) -> Reply:
        if field in request.json:
            return json_reply({"error": {"message": f"Unrecognized request argument supplied: {field}"}}, 400)
        if request.json.get("stream"):
            return Reply(events=openai_stream(PIECES, usage=None))
        return json_reply(completion_body(ANSWER))

    return reply


@pytest.mark.parametrize("field", ["response_format", "stream_options"])
async def test_an_optional_field_the_server_rejects_is_dropped_once_and_for_all(make_client, field: str) -> None:
    async with FakeProviderServer(rejects(field)) as server:
        client = make_client(server.base_url)
        chunks = await collect(client)
        await collect(client)

    assert "".join(c.delta for c in chunks) == ANSWER
    assert [field in r.json for r in server.requests] == [True, False, False]


async def test_the_buffered_call_drops_a_rejected_response_format_too(make_client) -> None:
    async with FakeProviderServer(rejects("response_format")) as server:
        completion = await make_client(server.base_url).complete(MESSAGES, PARAMS)

    assert completion.text == ANSWER
    assert len(server.requests) == 2


async def test_a_400_about_something_else_is_a_rejection(make_client) -> None:
    async with FakeProviderServer([json_reply({"error": {"message": "max_tokens is too large"}}, 400)]) as server:
        with pytest.raises(ProviderRejected, match="max_tokens is too large"):
            await collect(make_client(server.base_url))
    assert len(server.requests) == 1


async def test_the_buffered_call_reads_text_and_usage(make_client) -> None:
    async with FakeProviderServer([json_reply(completion_body(ANSWER, usage=(30, 12)))]) as server:
        completion = await make_client(server.base_url).complete(MESSAGES, PARAMS)

    assert completion.text == ANSWER
    assert (completion.input_tokens, completion.output_tokens, completion.usage_estimated) == (30, 12, False)
    assert (completion.finish_reason, completion.model, completion.provider) == ("stop", "gpt-4o-mini", "openai")
    assert "stream" not in server.requests[0].json


async def test_the_buffered_call_estimates_counts_without_usage(make_client) -> None:
    async with FakeProviderServer([json_reply(completion_body(ANSWER, usage=None))]) as server:
        completion = await make_client(server.base_url).complete(MESSAGES, PARAMS)

    assert completion.usage_estimated is True
    assert completion.input_tokens == estimate_input_tokens(MESSAGES)
    assert completion.output_tokens > 0


async def test_a_buffered_answer_without_json_is_unavailable(make_client) -> None:
    async with FakeProviderServer([Reply(body=b"<html>oops</html>", headers={"content-type": "text/html"})]) as server:
        with pytest.raises(ProviderUnavailable, match="not JSON"):
            await make_client(server.base_url).complete(MESSAGES, PARAMS)


async def test_leaving_a_stream_early_closes_its_response(make_client) -> None:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES), pause_s=0.01)]) as server:
        client = make_client(server.base_url)
        stream = client.stream(MESSAGES, PARAMS)
        first = await anext(stream)
        await stream.aclose()
        again = await collect(client)

    assert first.delta == PIECES[0]
    assert "".join(c.delta for c in again) == ANSWER


STRUCTURED = StructuredOutput(
    name="support_answer",
    strict={"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]},
    guided={"anyOf": [{"type": "object"}]},
)
TOOL = ToolSpec(
    name="issue_refund",
    description="Refund an invoice.",
    parameters={"type": "object", "properties": {"invoice_id": {"type": "string", "enum": ["INV-1001"]}}},
)
WITH_SCHEMA = LLMParams(max_tokens=64, structured=STRUCTURED, tools=(TOOL,))


async def sent_payload(**options: object) -> dict[str, object]:
    async with FakeProviderServer([Reply(events=openai_stream(PIECES))]) as server:
        client = OpenAICompatibleClient(base_url=server.base_url, model="m", **options)  # type: ignore[arg-type]
        try:
            async for _ in client.stream(MESSAGES, WITH_SCHEMA):
                pass
        finally:
            await client.aclose()
    return server.requests[0].json  # type: ignore[no-any-return]


async def test_a_schema_goes_as_strict_json_schema_and_actions_as_tools() -> None:
    payload = await sent_payload()

    assert payload["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "support_answer", "strict": True, "schema": STRUCTURED.strict},
    }
    assert payload["tools"] == [
        {
            "type": "function",
            "function": {"name": "issue_refund", "description": "Refund an invoice.", "parameters": TOOL.parameters},
        }
    ]


async def test_llama_cpp_python_gets_the_guided_schema_as_json_object_and_no_tools() -> None:
    payload = await sent_payload(schema_dialect="json_object_schema", tool_calls=False)

    assert payload["response_format"] == {"type": "json_object", "schema": STRUCTURED.guided}
    assert "tools" not in payload


async def test_a_server_that_rejects_json_schema_gets_json_object_with_the_schema_then_none(make_client) -> None:
    rejected = json_reply({"error": {"message": "Unknown parameter: response_format.json_schema"}}, status=400)
    ok = Reply(events=openai_stream(PIECES))
    async with FakeProviderServer([rejected, rejected, ok, ok]) as server:
        client = make_client(server.base_url)
        for _ in range(2):
            chunks = [chunk async for chunk in client.stream(MESSAGES, WITH_SCHEMA)]

    assert "".join(c.delta for c in chunks) == ANSWER
    formats = [request.json.get("response_format") for request in server.requests]
    assert formats == [
        {"type": "json_schema", "json_schema": {"name": "support_answer", "strict": True, "schema": STRUCTURED.strict}},
        {"type": "json_object", "schema": STRUCTURED.guided},
        None,
        None,
    ], "each downgrade is remembered"


async def test_llama_cpp_pythons_500_for_json_schema_switches_to_its_own_form(make_client, sleeps) -> None:
    """llama-cpp-python validates ``response_format.type`` and answers 500 for ``json_schema``."""
    error = {
        "error": {
            "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type')}"
        }
    }
    async with FakeProviderServer(
        [json_reply(error, status=500)] * 3 + [Reply(events=openai_stream(PIECES))]
    ) as server:
        chunks = [chunk async for chunk in make_client(server.base_url).stream(MESSAGES, WITH_SCHEMA)]

    assert "".join(c.delta for c in chunks) == ANSWER
    assert server.requests[-1].json["response_format"] == {"type": "json_object", "schema": STRUCTURED.guided}


def tool_call_chunk(index: int, name: str | None = None, arguments: str | None = None) -> bytes:
    function = {key: value for key, value in (("name", name), ("arguments", arguments)) if value is not None}
    call = {"index": index, "type": "function", "function": function}
    return openai_chunk(None, None).replace(b'"delta":{}', b'"delta":' + msgspec.json.encode({"tool_calls": [call]}))


async def test_streamed_tool_call_fragments_arrive_whole_on_the_last_chunk(make_client) -> None:
    events = [
        tool_call_chunk(0, name="issue_refund", arguments=""),
        tool_call_chunk(0, arguments='{"invoice'),
        tool_call_chunk(0, arguments='_id": "INV-1001"}'),
        openai_chunk(finish_reason="tool_calls"),
        b"data: [DONE]\n\n",
    ]
    async with FakeProviderServer([Reply(events=events)]) as server:
        chunks = [chunk async for chunk in make_client(server.base_url).stream(MESSAGES, WITH_SCHEMA)]

    assert [c.tool_calls for c in chunks[:-1]] == [()] * (len(chunks) - 1)
    assert chunks[-1].tool_calls == (ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"}),)
    assert chunks[-1].finish_reason == "tool_calls"


async def test_a_buffered_tool_call_is_read_and_bad_arguments_count_as_none(make_client) -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"index": 0, "function": {"name": "issue_refund", "arguments": '{"invoice_id": "INV-1001"}'}},
            {"index": 1, "function": {"name": "delete_account", "arguments": "not json"}},
        ],
    }
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    async with FakeProviderServer([json_reply(body)]) as server:
        completion = await make_client(server.base_url).complete(MESSAGES, WITH_SCHEMA)

    assert completion.text == ""
    assert completion.tool_calls == (
        ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"}),
        ToolCall(name="delete_account", arguments={}),
    )
