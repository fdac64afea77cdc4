"""Semantic search over the long-term store: ``langgraph.json``'s ``store.index`` (an embedding function, its
dimensions, the fields to embed), as the Agent Server reads it.

An item's vectors are kept inside its stored value, under ``VECTORS_FIELD``, so they are sealed with it at rest
(an embedding is derived from the plaintext, and would say much of it), expire with it, and go with it when it is
deleted or its subject erased: no second table has to follow the item's lifecycle. Reads strip the field. A
``query`` ranks the subject's items under the prefix by the cosine similarity of the query's vector with their
best-matching vector, in Python over the opened values, as a sealed ``filter`` search pages through them (ADR 38):
a search reads every indexed item under its prefix, which is what a store of a subject's memories can afford.
"""

from __future__ import annotations

import base64
import math
import sys
from array import array
from typing import TYPE_CHECKING, Any

from langgraph.store.base.embed import ensure_embeddings, get_text_at_path, tokenize_path

from agent.stores.graph_store.errors import StoreIndexFailed, StoreReservedField

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langgraph.store.base.embed import AEmbeddingsFunc, EmbeddingsFunc

__all__ = ("VECTORS_FIELD", "StoreIndex", "score", "stripped", "unreserved")

VECTORS_FIELD = "__vectors__"
"""Where a stored value keeps its vectors: float32, little-endian, one after the other, base64."""


class StoreIndex:
    """The embedding index: ``embed`` (a function from a list of texts to their vectors, sync or async, as LangGraph's
    stores take it), their ``dims``, and the ``fields`` embedded when a put names none (``["$"]``: the whole value)."""

    def __init__(
        self, embed: EmbeddingsFunc | AEmbeddingsFunc, *, dims: int, fields: Sequence[str] | None = None
    ) -> None:
        self._embeddings = ensure_embeddings(embed)
        self.dims = dims
        self.fields = list(fields or ["$"])

    async def indexed(self, value: dict[str, Any], index: bool | list[str] | None) -> dict[str, Any]:
        """``value`` as it is stored: with its vectors (of ``index``'s fields, the configured ones when None or
        True), or as it is when ``index`` is False or no field of it holds text."""
        if index is False:
            return value
        fields = self.fields if index is None or index is True else index
        texts = [text for field in fields for text in get_text_at_path(value, _tokenized(field))]
        if not texts:
            return value
        vectors = await self._embed(texts, documents=True)
        return {**value, VECTORS_FIELD: _encoded(vectors)}

    async def query_vector(self, query: str) -> list[float]:
        [vector] = await self._embed([query], documents=False)
        return vector

    async def _embed(self, texts: list[str], *, documents: bool) -> list[list[float]]:
        try:
            if documents:
                vectors = await self._embeddings.aembed_documents(texts)
            else:
                vectors = [await self._embeddings.aembed_query(texts[0])]
        except Exception as exc:
            raise StoreIndexFailed(f"the embedding function failed: {type(exc).__name__}") from exc
        if len(vectors) != len(texts) or any(len(vector) != self.dims for vector in vectors):
            raise StoreIndexFailed(
                f"the embedding function answered {len(vectors)} vectors of "
                f"{sorted({len(vector) for vector in vectors})} dimensions for {len(texts)} texts; store.index.dims "
                f"is {self.dims}"
            )
        return [[float(x) for x in vector] for vector in vectors]


def score(query: Sequence[float], stored: dict[str, Any]) -> float | None:
    """The cosine similarity of ``query`` with the best of a stored value's vectors; None when it has none."""
    encoded = stored.get(VECTORS_FIELD)
    if not isinstance(encoded, str):
        return None
    flat = array("f")
    flat.frombytes(base64.b64decode(encoded))
    if sys.byteorder == "big":
        flat.byteswap()
    dims = len(query)
    query_norm = math.sqrt(sum(x * x for x in query)) or 1.0
    best: float | None = None
    for start in range(0, len(flat) - dims + 1, dims):
        vector = flat[start : start + dims]
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        similarity = sum(q * v for q, v in zip(query, vector, strict=True)) / (query_norm * norm)
        best = similarity if best is None else max(best, similarity)
    return best


def unreserved(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` as a client or a graph gave it, refused (``StoreReservedField``) when it holds ``VECTORS_FIELD``,
    which every read strips: whatever was put there would be lost."""
    if VECTORS_FIELD in value:
        raise StoreReservedField(VECTORS_FIELD)
    return value


def stripped(value: dict[str, Any]) -> dict[str, Any]:
    """A stored value as a reader sees it: without its vectors."""
    if VECTORS_FIELD not in value:
        return value
    return {field: item for field, item in value.items() if field != VECTORS_FIELD}


def _tokenized(field: str) -> str | list[str]:
    return "$" if field == "$" else tokenize_path(field)


def _encoded(vectors: list[list[float]]) -> str:
    flat = array("f", (x for vector in vectors for x in vector))
    if flat.itemsize != 4:
        raise RuntimeError("the store's vectors are float32")
    if sys.byteorder == "big":
        flat.byteswap()
    return base64.b64encode(flat.tobytes()).decode()
