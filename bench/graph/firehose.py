"""The graph the Agent Protocol benchmark streams on every server: one node whose chat model sends a firehose.

``model`` calls ``FirehoseChatModel``, which streams as many one-word chunks as the last message asks
(its content is the count, ``"20000"``) with no pause, so a server's transport is what the figures
measure, not a model. It needs only LangGraph and LangChain, the packages every server under test has in
its own environment: this service, ``langgraph dev`` and Aegra each load it from ``langgraph.json`` beside it.

The module has no ``from __future__ import annotations``, unlike the project's others: Aegra 0.6 reads a
graph's state annotations at run time and a module with postponed annotations breaks its thread state.
"""

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.graph import START, MessagesState, StateGraph

__all__ = ("FirehoseChatModel", "graph")

TOKEN = "token "
"""Five letters: this service's streaming redaction holds back words of four letters or fewer (they may be an
IBAN's letter groups) until up to about 130 characters follow them, which would add its hold to the first
token; a longer word is let out at once, so the figures measure the transport (and compare with earlier runs)."""
YIELD_EVERY = 64
"""Chunks between two yields to the event loop, as ``bench.models.FirehoseLLM`` does on the ``/chat`` path."""


def token_count(messages: list[BaseMessage]) -> int:
    """How many tokens the last message asks for; a message that is no number asks for one."""
    text = messages[-1].text if messages else ""
    return int(text) if text.strip().isdigit() else 1


class FirehoseChatModel(BaseChatModel):
    """A chat model that streams ``token_count(messages)`` chunks of ``"token "`` as fast as it can."""

    @property
    def _llm_type(self) -> str:
        return "firehose"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=TOKEN * token_count(messages)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for _ in range(token_count(messages)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=TOKEN))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for index in range(token_count(messages)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=TOKEN))
            if index % YIELD_EVERY == 0:
                await asyncio.sleep(0)


_model = FirehoseChatModel()


async def model(state: MessagesState) -> dict[str, list[BaseMessage]]:
    return {"messages": [await _model.ainvoke(state["messages"])]}


graph = StateGraph(MessagesState).add_node("model", model).add_edge(START, "model").compile(name="firehose")
