"""The service's LLM clients as a LangChain chat model: tokens stream as chunks, bound tools reach providers that take
them and come back as tool calls; and ``create_chat_model`` picks the model ``HARNESS_CHAT_MODEL`` names."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from agent.config import ConfigError, StubConfig
from agent.llm import OpenAICompatibleClient
from agent.llm.langchain_model import HarnessChatModel, create_chat_model, to_chat_messages
from agent.llm.scripted_model import ScriptedChatModel
from agent.llm.stub import StubLLM
from agent.llm.types import ChatMessage
from tests.agent.llm.fake_server import FakeProviderServer, Reply, json_reply, openai_chunk

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent.llm.protocol import LLMClient


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order by its id."""
    return order_id


def tool_call_event(name: str | None, arguments: str) -> bytes:
    function = {"arguments": arguments} | ({"name": name} if name else {})
    call = {"index": 0, "type": "function", "function": function}
    return openai_chunk(None, None).replace(b'"delta":{}', b'"delta":' + msgspec.json.encode({"tool_calls": [call]}))


def counting(make: Callable[[], LLMClient]) -> tuple[Callable[[], LLMClient], list[LLMClient]]:
    made: list[LLMClient] = []

    def factory() -> LLMClient:
        made.append(make())
        return made[-1]

    return factory, made


async def test_tokens_stream_as_chunks_and_the_last_carries_the_counts() -> None:
    model = HarnessChatModel(client_factory=lambda: StubLLM(StubConfig(token_delay_ms=0)))

    chunks = [chunk async for chunk in model.astream([HumanMessage("Question: How do I reset my password?")])]

    assert len(chunks) > 3
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert "".join(str(chunk.content) for chunk in chunks).startswith('{"kind":"no_answer"')
    last = chunks[-1]
    assert last.chunk_position == "last"
    assert last.usage_metadata is not None
    assert last.usage_metadata["output_tokens"] == len(chunks)
    assert last.response_metadata["model_name"] == "stub-1"


async def test_bound_tools_reach_an_openai_server_and_its_streamed_call_comes_back_whole() -> None:
    events = [
        tool_call_event("lookup_order", ""),
        tool_call_event(None, '{"order_'),
        tool_call_event(None, 'id": "A-1001"}'),
        openai_chunk(finish_reason="tool_calls"),
        b"data: [DONE]\n\n",
    ]
    async with FakeProviderServer([Reply(events=events)]) as server:
        model = HarnessChatModel(client_factory=lambda: OpenAICompatibleClient(base_url=server.base_url, model="m"))
        answer: Any = None
        async for chunk in model.bind_tools([lookup_order]).astream([HumanMessage("Where is A-1001?")]):
            answer = chunk if answer is None else answer + chunk
        await model.aclose()

    sent = server.requests[0].json
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup_order",
                "description": "Look up an order by its id.",
                "parameters": {
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}},
                    "required": ["order_id"],
                },
            },
        }
    ]
    assert "response_format" not in sent
    assert [(call["name"], call["args"]) for call in answer.tool_calls] == [("lookup_order", {"order_id": "A-1001"})]
    assert answer.tool_calls[0]["id"].startswith("call_")


async def test_a_buffered_answer_and_a_synchronous_call_each_use_a_client_of_their_loop() -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Shipped."}, "finish_reason": "stop"}]}
    async with FakeProviderServer([json_reply(body)]) as server:
        factory, made = counting(lambda: OpenAICompatibleClient(base_url=server.base_url, model="m"))
        model = HarnessChatModel(client_factory=factory)
        first = await model.ainvoke([HumanMessage("Where is A-1001?")])
        second = await model.ainvoke([HumanMessage("And A-1002?")])
        in_a_thread = await asyncio.to_thread(model.invoke, [HumanMessage("And A-1003?")])
        await model.aclose()

    assert [first.content, second.content, in_a_thread.content] == ["Shipped."] * 3
    assert len(made) == 2
    assert first.usage_metadata is not None
    assert first.response_metadata["finish_reason"] == "stop"


def test_a_conversation_with_tool_calls_is_told_in_the_clients_three_roles() -> None:
    messages = [
        SystemMessage("You are helpful."),
        HumanMessage("Refund A-1001"),
        AIMessage("Looking.", tool_calls=[{"name": "lookup_order", "args": {"order_id": "A-1001"}, "id": "c1"}]),
        ToolMessage('{"status": "delivered"}', tool_call_id="c1", name="lookup_order"),
    ]

    assert to_chat_messages(messages) == [
        ChatMessage("system", "You are helpful."),
        ChatMessage("user", "Refund A-1001"),
        ChatMessage("assistant", 'Looking.\n[called lookup_order({"order_id": "A-1001"})]'),
        ChatMessage("user", '[lookup_order returned] {"status": "delivered"}'),
    ]


def test_without_a_choice_the_factory_gives_the_scripted_model() -> None:
    model = create_chat_model(lambda messages: "Hello.", environ={})

    assert isinstance(model, ScriptedChatModel)
    assert model.invoke([HumanMessage("hi")]).content == "Hello."


async def test_a_provider_name_gives_the_services_client_configured_by_its_own_variables() -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Local."}, "finish_reason": "stop"}]}
    async with FakeProviderServer([json_reply(body)]) as server:
        model = create_chat_model(
            lambda messages: "unused",
            environ={
                "HARNESS_CHAT_MODEL": "local",
                "HARNESS_LLM_LOCAL_BASE_URL": server.base_url,
                "HARNESS_LLM_PROVIDER": "openai",
                "HARNESS_LLM_BASE_URL": "http://127.0.0.1:9/v1",
                "HARNESS_LLM_API_KEY": "sk-for-the-services-own-provider",
            },
        )
        answer = await model.bind_tools([lookup_order]).ainvoke([HumanMessage("hi")])
        assert isinstance(model, HarnessChatModel)
        await model.aclose()

    assert answer.content == "Local."
    (request,) = server.requests
    assert "tools" not in request.json
    assert "authorization" not in request.headers


def test_an_unknown_provider_is_a_config_error_when_the_graph_is_made() -> None:
    with pytest.raises(ConfigError, match="unknown provider 'gpt'"):
        create_chat_model(lambda messages: "", environ={"HARNESS_CHAT_MODEL": "gpt"})
