"""A disk cache of model calls: the same call (provider, model, messages, parameters, output schema) is
answered once, then replayed from a SQLite file, streamed tokens included.

An eval run of a real model costs money and minutes; re-running it after a change to the report or a
scorer should cost neither. A hit gives back exactly what the provider sent (the completion, its tool calls
and its usage counts), and the cache counts hits and the tokens they saved. ``scope`` is part of the key:
an eval's epochs use one scope each, so a sampled model is sampled again per epoch instead of replayed.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from typing import TYPE_CHECKING, Any

import msgspec

from agent.llm.protocol import StreamingLLMClient
from agent.llm.streaming import stream_answer
from agent.llm.types import Chunk, Completion
from agent.llm.wrapper import LLMWrapper

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence
    from pathlib import Path

    from agent.llm.protocol import LLMClient
    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("CacheStats", "CachedLLM", "CachedStreamingLLM", "ModelCallCache", "cached")

CACHE_FILE = "model-calls.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS model_calls (
    key TEXT PRIMARY KEY,
    completion BLOB NOT NULL,
    deltas BLOB
)
"""


class CacheStats(msgspec.Struct, kw_only=True):
    """What the cache did in one process: the figures ``report.json`` and the terminal summary show."""

    hits: int = 0
    misses: int = 0
    saved_input_tokens: int = 0
    saved_output_tokens: int = 0

    @property
    def saved_tokens(self) -> int:
        return self.saved_input_tokens + self.saved_output_tokens


class _Entry(msgspec.Struct, frozen=True):
    completion: Completion
    deltas: list[str] | None
    """The streamed pieces in order, for a streamed call; ``None`` for a buffered one."""


class ModelCallCache:
    """One SQLite file of calls and their answers; safe to share between the tasks of one event loop."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.stats = CacheStats()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)

    @classmethod
    def in_directory(cls, directory: Path) -> ModelCallCache:
        return cls(directory / CACHE_FILE)

    @staticmethod
    def key(
        *, kind: str, provider: str, model: str, messages: Sequence[ChatMessage], params: LLMParams, scope: str = ""
    ) -> str:
        """A digest of everything that decides the answer; ``params`` carries the output schema and tools."""
        payload = msgspec.json.encode(
            {
                "kind": kind,
                "provider": provider,
                "model": model,
                "messages": list(messages),
                "params": params,
                "scope": scope,
            },
            order="sorted",
        )
        return hashlib.sha256(payload).hexdigest()

    def lookup_raw(self, key: str) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT completion FROM model_calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def store_raw(self, key: str, value: bytes) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO model_calls (key, completion) VALUES (?, ?)", (key, value))

    def lookup(self, key: str) -> _Entry | None:
        with self._lock:
            row = self._db.execute("SELECT completion, deltas FROM model_calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.stats.misses += 1
            return None
        entry = _Entry(
            completion=msgspec.json.decode(row[0], type=Completion),
            deltas=None if row[1] is None else msgspec.json.decode(row[1], type=list[str]),
        )
        self.count_hit(entry.completion.input_tokens, entry.completion.output_tokens)
        return entry

    def store(self, key: str, completion: Completion, deltas: list[str] | None = None) -> None:
        encoded_deltas = None if deltas is None else msgspec.json.encode(deltas)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO model_calls (key, completion, deltas) VALUES (?, ?, ?)",
                (key, msgspec.json.encode(completion), encoded_deltas),
            )

    def count_hit(self, input_tokens: int, output_tokens: int) -> None:
        self.stats.hits += 1
        self.stats.saved_input_tokens += input_tokens
        self.stats.saved_output_tokens += output_tokens

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedLLM(LLMWrapper):
    """``inner`` behind the cache, for buffered calls."""

    def __init__(self, inner: LLMClient, cache: ModelCallCache, *, scope: str = "") -> None:
        super().__init__(inner)
        self.cache = cache
        self.scope = scope

    def _key(self, kind: str, messages: Sequence[ChatMessage], params: LLMParams) -> str:
        return ModelCallCache.key(
            kind=kind, provider=self.provider, model=self.model, messages=messages, params=params, scope=self.scope
        )

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        key = self._key("complete", messages, params)
        entry = self.cache.lookup(key)
        if entry is not None:
            return entry.completion
        completion = await self.inner.complete(messages, params)
        self.cache.store(key, completion)
        return completion


class CachedStreamingLLM(CachedLLM):
    """``inner`` behind the cache, streams too: a hit replays the same pieces, the last one with the counts."""

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        key = self._key("stream", messages, params)
        entry = self.cache.lookup(key)
        if entry is not None:
            for chunk in _replay(entry):
                yield chunk
            return
        deltas: list[str] = []
        last: Chunk | None = None
        text: list[str] = []
        async for chunk in stream_answer(self.inner, messages, params):
            deltas.append(chunk.delta)
            text.append(chunk.delta)
            last = chunk
            yield chunk
        if last is not None and last.finish_reason is not None:  # only a stream that finished is worth replaying
            self.cache.store(key, _completion_of(last, "".join(text)), deltas)


def cached(client: LLMClient, cache: ModelCallCache, *, scope: str = "") -> CachedLLM:
    """``client`` behind ``cache``, streaming when the client streams."""
    if isinstance(client, StreamingLLMClient):
        return CachedStreamingLLM(client, cache, scope=scope)
    return CachedLLM(client, cache, scope=scope)


def _completion_of(last: Chunk, text: str) -> Completion:
    return Completion(
        text=text,
        model=last.model,
        provider=last.provider,
        input_tokens=last.input_tokens,
        output_tokens=last.output_tokens,
        finish_reason=last.finish_reason or "stop",
        usage_estimated=last.usage_estimated,
        tool_calls=last.tool_calls,
    )


def _replay(entry: _Entry) -> list[Chunk]:
    completion = entry.completion
    deltas = entry.deltas if entry.deltas else [completion.text]
    base: dict[str, Any] = {"model": completion.model, "provider": completion.provider}
    chunks = [Chunk(delta=delta, **base) for delta in deltas[:-1]]
    chunks.append(
        Chunk(
            delta=deltas[-1],
            finish_reason=completion.finish_reason,
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            usage_estimated=completion.usage_estimated,
            tool_calls=completion.tool_calls,
            **base,
        )
    )
    return chunks
