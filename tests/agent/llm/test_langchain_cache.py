from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.globals import get_llm_cache
from langchain_core.messages import HumanMessage

from agent.llm.cache import ModelCallCache
from agent.llm.langchain_cache import langchain_cache
from agent.llm.langchain_model import HarnessChatModel
from agent.llm.openai import OpenAICompatibleClient
from tests.agent.llm.fake_server import FakeProviderServer
from tests.agent.llm.test_cache import completion_body

if TYPE_CHECKING:
    from pathlib import Path


async def test_a_langchain_chat_models_call_is_answered_from_the_cache_the_second_time(tmp_path: Path) -> None:
    cache = ModelCallCache.in_directory(tmp_path)
    async with FakeProviderServer([completion_body("Hello there.", usage=(12, 4))]) as server:
        model = HarnessChatModel(client_factory=lambda: OpenAICompatibleClient(base_url=server.base_url, model="m"))
        with langchain_cache(cache):
            first = await model.ainvoke([HumanMessage("hi")])
            again = await model.ainvoke([HumanMessage("hi")])
            other = await model.ainvoke([HumanMessage("something else")])
        await model.aclose()

    assert get_llm_cache() is None
    assert len(server.requests) == 2
    assert first.content == again.content == other.content == "Hello there."
    assert (cache.stats.hits, cache.stats.misses) == (1, 2)
    assert (cache.stats.saved_input_tokens, cache.stats.saved_output_tokens) == (12, 4)
