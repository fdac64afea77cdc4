"""The model-call cache for graphs whose nodes call LangChain chat models: LangChain's own cache hook.

``set_llm_cache`` makes every chat model of the process look its call up first (LangChain keys it by the
serialized messages and the model's parameters, tools and output format included). This cache keeps those
answers in the same SQLite file as ``agent.llm.cache`` and counts its hits and saved tokens there, so a
registered graph's model calls cost nothing the second time, as the support agent's do.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import msgspec
from langchain_core.caches import BaseCache
from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.messages import message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, Generation

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from agent.llm.cache import ModelCallCache

__all__ = ("LangChainModelCache", "langchain_cache")

_PREFIX = "langchain:"


class LangChainModelCache(BaseCache):
    """LangChain's ``BaseCache`` over a ``ModelCallCache``."""

    def __init__(self, cache: ModelCallCache) -> None:
        self.cache = cache

    @staticmethod
    def _key(prompt: str, llm_string: str) -> str:
        return _PREFIX + hashlib.sha256(f"{llm_string}\x00{_sent(prompt)}".encode()).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        raw = self.cache.lookup_raw(self._key(prompt, llm_string))
        if raw is None:
            self.cache.stats.misses += 1
            return None
        generations = _decode(raw)
        input_tokens, output_tokens = _usage(generations)
        self.cache.count_hit(input_tokens, output_tokens)
        return generations

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        self.cache.store_raw(self._key(prompt, llm_string), _encode(return_val))

    def clear(self, **kwargs: Any) -> None:
        raise NotImplementedError("delete the cache file to clear it")


@contextmanager
def langchain_cache(cache: ModelCallCache) -> Iterator[LangChainModelCache]:
    """LangChain's process-wide cache set to ``cache`` for the block, and set back afterwards."""
    previous = get_llm_cache()
    installed = LangChainModelCache(cache)
    set_llm_cache(installed)
    try:
        yield installed
    finally:
        set_llm_cache(previous)


_NOT_SENT = ("usage_metadata", "response_metadata")
"""What a message in the history carries that no provider is sent: LangChain marks an answer replayed from
the cache with ``total_cost: 0`` in its usage, so keying on it would make the turn after a hit a miss."""


def _sent(prompt: str) -> str:
    """The serialized messages without what is not sent to the model."""
    try:
        messages = msgspec.json.decode(prompt)
    except msgspec.DecodeError:
        return prompt
    if not isinstance(messages, list):
        return prompt
    for message in messages:
        kwargs = message.get("kwargs") if isinstance(message, dict) else None
        if isinstance(kwargs, dict):
            for key in _NOT_SENT:
                kwargs.pop(key, None)
    return msgspec.json.encode(messages, order="sorted").decode()


def _encode(generations: Sequence[Generation]) -> bytes:
    """Messages in LangChain's own dict form (``message_to_dict``), which keeps tool calls and usage."""
    return msgspec.json.encode(
        [
            {"message": message_to_dict(g.message)} if isinstance(g, ChatGeneration) else {"text": g.text}
            for g in generations
        ]
    )


def _decode(raw: bytes) -> list[Generation]:
    generations: list[Generation] = []
    for item in msgspec.json.decode(raw):
        if "message" in item:
            [message] = messages_from_dict([item["message"]])
            generations.append(ChatGeneration(message=message))
        else:
            generations.append(Generation(text=item["text"]))
    return generations


def _usage(generations: Sequence[Generation]) -> tuple[int, int]:
    input_tokens = output_tokens = 0
    for generation in generations:
        usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
        input_tokens += int(usage.get("input_tokens", 0))
        output_tokens += int(usage.get("output_tokens", 0))
    return input_tokens, output_tokens
