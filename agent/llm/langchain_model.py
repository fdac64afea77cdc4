"""This service's language models as a LangChain chat model, for graphs written the way LangGraph users write them.

``HarnessChatModel`` speaks to any ``LLMClient`` of ``agent.llm`` (an OpenAI-compatible server, Anthropic, the
bundled SmolLM2 under llama.cpp): tokens stream as ``AIMessageChunk``s (so LangGraph's ``messages`` stream
carries them), and tools bound with ``bind_tools`` go to providers that take them (OpenAI-compatible servers
but llama-cpp-python's, Anthropic), whose calls come back as the message's ``tool_calls``.

The clients' conversation has only system, user and assistant turns, so a tool call the model made is told
back as assistant text (``[called lookup_order({"order_id": "A-1"})]``) and a tool's result as a user turn
(``[lookup_order returned] …``): any provider follows a ReAct loop that way, though not with its native
tool-result messages. ``tool_choice`` and ``stop`` are not passed on (``LLMParams`` has neither).

``create_chat_model`` is the factory the examples use, and a user replaces with their own model:
``HARNESS_CHAT_MODEL`` unset or ``fake`` gives a ``ScriptedChatModel`` (deterministic, offline) answering with
the graph's own script; a provider or a chain (``local``, ``openai``, ``anthropic``, ``openai,anthropic``)
gives ``HarnessChatModel`` over that provider, configured like the service's own by the ``HARNESS_LLM_*``
variables (``HARNESS_LLM_LOCAL_BASE_URL``: where llama.cpp's server listens, by default
``http://127.0.0.1:8765/v1``, the port ``python -m agent.llm.local_server`` takes).
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Callable  # noqa: TC003 (pydantic resolves the fields' types at runtime)
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from agent.config import AgentConfig
from agent.llm.factory import close_llm_client, create_llm_client
from agent.llm.protocol import LLMClient  # noqa: TC001 (pydantic resolves the fields' types at runtime)
from agent.llm.scripted_model import ScriptedChatModel
from agent.llm.streaming import stream_answer
from agent.llm.tool_calling import ToolCallingChatModel
from agent.llm.types import ChatMessage, LLMParams, ToolSpec

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence

    from langchain_core.callbacks import AsyncCallbackManagerForLLMRun

    from agent.llm.scripted_model import Script
    from agent.llm.types import Chunk, Completion, ToolCall

__all__ = ("CHAT_MODEL_VARIABLE", "HarnessChatModel", "create_chat_model", "to_chat_messages")

CHAT_MODEL_VARIABLE = "HARNESS_CHAT_MODEL"
_SHARED_SETTINGS = ("HARNESS_LLM_BASE_URL", "HARNESS_LLM_API_KEY", "HARNESS_LLM_MODEL")


class HarnessChatModel(ToolCallingChatModel):
    """A chat model over one of this service's LLM clients, made by ``client_factory`` (one per event loop:
    an HTTP client belongs to the loop it was opened on; a synchronous call gets a client of its own)."""

    client_factory: Callable[[], LLMClient]
    max_tokens: int = 512
    temperature: float = 0.0
    _clients: WeakKeyDictionary[asyncio.AbstractEventLoop, LLMClient] = PrivateAttr(default_factory=WeakKeyDictionary)

    @property
    def _llm_type(self) -> str:
        return "agent-harness"

    async def _answer_chunks(
        self, messages: list[BaseMessage], options: dict[str, Any]
    ) -> AsyncIterator[ChatGenerationChunk]:
        async for chunk in stream_answer(self._client(), to_chat_messages(messages), self._params(options)):
            yield ChatGenerationChunk(message=_message_chunk(chunk))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await self._complete(self._client(), messages, kwargs)

    def _result(self, messages: list[BaseMessage], options: dict[str, Any]) -> ChatResult:
        async def once() -> ChatResult:
            client = self.client_factory()
            try:
                return await self._complete(client, messages, options)
            finally:
                await close_llm_client(client)

        with ThreadPoolExecutor(max_workers=1) as worker:
            return worker.submit(asyncio.run, once()).result()

    async def aclose(self) -> None:
        """Close this event loop's client, if it opened one."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await close_llm_client(client)

    def _client(self) -> LLMClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self.client_factory()
        return client

    async def _complete(self, client: LLMClient, messages: list[BaseMessage], options: dict[str, Any]) -> ChatResult:
        completion = await client.complete(to_chat_messages(messages), self._params(options))
        message = AIMessage(
            content=completion.text,
            tool_calls=[_tool_call(call) for call in completion.tool_calls],
            **_answered(completion),
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _params(self, options: Mapping[str, Any]) -> LLMParams:
        tools = tuple(
            ToolSpec(
                name=tool["function"]["name"],
                description=tool["function"].get("description", ""),
                parameters=tool["function"].get("parameters", {}),
            )
            for tool in options.get("tools", ())
        )
        return LLMParams(max_tokens=self.max_tokens, temperature=self.temperature, json_mode=False, tools=tools)


def to_chat_messages(messages: Sequence[BaseMessage]) -> list[ChatMessage]:
    """A LangChain conversation as the clients' system, user and assistant turns."""
    turns: list[ChatMessage] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            turns.append(ChatMessage("system", _text(message)))
        elif isinstance(message, AIMessage):
            calls = [f"[called {call['name']}({json.dumps(call['args'])})]" for call in message.tool_calls]
            turns.append(ChatMessage("assistant", "\n".join(filter(None, [_text(message), *calls]))))
        elif isinstance(message, ToolMessage):
            turns.append(ChatMessage("user", f"[{message.name or 'the tool'} returned] {_text(message)}"))
        else:
            turns.append(ChatMessage("user", _text(message)))
    return turns


def _text(message: BaseMessage) -> str:
    """The message's text as a plain ``str`` (LangChain's ``text`` is an accessor the clients cannot encode)."""
    return str(message.text)


def create_chat_model(script: Script, *, environ: Mapping[str, str] | None = None) -> ToolCallingChatModel:
    """The chat model ``HARNESS_CHAT_MODEL`` names: ``fake`` (the default), the ``ScriptedChatModel`` playing
    ``script``; else a provider or a chain of them, over this service's clients."""
    env = os.environ if environ is None else environ
    choice = (env.get(CHAT_MODEL_VARIABLE) or "fake").strip()
    if choice == "fake":
        return ScriptedChatModel(script=script)
    chosen = {key: value for key, value in env.items() if key not in _SHARED_SETTINGS}
    if choice == env.get("HARNESS_LLM_PROVIDER", "").strip():
        chosen = dict(env)  # the service's own provider: its shared settings are meant for it too
    chosen["HARNESS_LLM_PROVIDER"] = choice
    config = AgentConfig(llm=AgentConfig.from_env(chosen).llm)
    create_llm_client(config)  # a configuration error shows now, when the graph is loaded, not at its first run
    return HarnessChatModel(client_factory=lambda: create_llm_client(config))


def _message_chunk(chunk: Chunk) -> AIMessageChunk:
    if chunk.finish_reason is None:
        return AIMessageChunk(content=chunk.delta)
    return AIMessageChunk(
        content=chunk.delta,
        tool_call_chunks=[
            {"name": call.name, "args": json.dumps(call.arguments), "id": _call_id(), "index": index}
            for index, call in enumerate(chunk.tool_calls)
        ],
        chunk_position="last",
        **_answered(chunk),
    )


def _answered(answer: Chunk | Completion) -> dict[str, Any]:
    """The counts and the model of a whole answer, as LangChain's messages carry them."""
    return {
        "usage_metadata": {
            "input_tokens": answer.input_tokens,
            "output_tokens": answer.output_tokens,
            "total_tokens": answer.input_tokens + answer.output_tokens,
        },
        "response_metadata": {
            "model_name": answer.model,
            "model_provider": answer.provider,
            "finish_reason": answer.finish_reason,
        },
    }


def _tool_call(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "args": call.arguments, "id": _call_id(), "type": "tool_call"}


def _call_id() -> str:
    """The clients' tool calls carry no id (``ToolCall``); LangChain pairs a call with its result by one."""
    return f"call_{uuid.uuid4().hex[:24]}"
