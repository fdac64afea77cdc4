"""Semantic search in the long-term store (``store.index``), on both backends, plain and sealed: a put embeds the
value's fields and keeps the vectors in the stored value, a ``query`` ranks a subject's items by them."""

from __future__ import annotations

import base64
import json
import math
import os
import zlib
from typing import TYPE_CHECKING, Any

import pytest

from agent.encryption import EncryptionKey
from agent.sealing import Sealer
from agent.stores import VECTORS_FIELD, StoreIndex, StoreIndexFailed, StoreReservedField, subject_label

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent.stores import GraphStore

DIMS = 16


def bag_of_words(texts: list[str]) -> list[list[float]]:
    """A deterministic embedding: each word counted in one of ``DIMS`` buckets (its CRC-32), normalized."""
    vectors = []
    for text in texts:
        vector = [0.0] * DIMS
        for word in text.lower().replace('"', " ").replace(":", " ").split():
            vector[zlib.crc32(word.encode()) % DIMS] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        vectors.append([x / norm for x in vector])
    return vectors


async def _put_memories(store: GraphStore) -> None:
    alice = store.for_subject("alice")
    await alice.aput(("memories",), "drink", {"text": "alice drinks green tea every morning", "kind": "taste"})
    await alice.aput(("memories",), "pet", {"text": "alice has a black cat named pixel", "kind": "life"})
    await alice.aput(("memories",), "work", {"text": "alice works on billing invoices", "kind": "work"})
    await alice.aput(("memories",), "private", {"text": "green tea cat invoices"}, index=False)
    await store.for_subject("bob").aput(("memories",), "drink", {"text": "bob drinks green tea too"})


@pytest.mark.parametrize("sealed", [False, True], ids=["plain", "sealed"])
async def test_a_query_ranks_the_subjects_indexed_items_by_meaning(
    open_store: Callable[[Sealer | None], Any],
    sealed: bool,
) -> None:
    async with open_store(Sealer(EncryptionKey(os.urandom(32))) if sealed else None) as store:
        store.use_index(StoreIndex(bag_of_words, dims=DIMS, fields=["text"]))
        await _put_memories(store)
        alice = store.for_subject("alice")

        found = await alice.asearch(("memories",), query="what tea does alice drink")

        assert found[0].key == "drink"
        assert "private" not in [item.key for item in found], "put with index=False: no vectors, never ranked"
        assert all(item.score is not None for item in found)
        assert [item.score for item in found] == sorted((item.score or 0 for item in found), reverse=True)
        assert all(VECTORS_FIELD not in item.value for item in found), "a reader never sees the vectors"
        assert (await alice.aget(("memories",), "drink")).value == {  # type: ignore[union-attr]
            "text": "alice drinks green tea every morning",
            "kind": "taste",
        }
        filtered = await alice.asearch(("memories",), query="what tea does alice drink", filter={"kind": "work"})
        assert [item.key for item in filtered] == ["work"]
        paged = await alice.asearch(("memories",), query="alice", limit=1, offset=1)
        assert len(paged) == 1
        bob = await store.for_subject("bob").asearch(("memories",), query="cat invoices tea")
        assert [item.key for item in bob] == ["drink"], "another subject's items are never ranked"

        raw = await store.backend.aget((subject_label("alice"), "memories"), "drink")
        assert raw is not None
        stored = json.dumps(raw.value)
        if sealed:
            assert "green tea" not in stored
            assert VECTORS_FIELD not in stored, "the vectors are sealed with the value"
        else:
            assert VECTORS_FIELD in raw.value


async def test_only_the_named_fields_are_embedded(open_store: Callable[[Sealer | None], Any]) -> None:
    async with open_store(None) as store:
        store.use_index(StoreIndex(bag_of_words, dims=DIMS, fields=["text"]))
        alice = store.for_subject("alice")
        await alice.aput(("docs",), "a", {"text": "refund policy", "note": "cat"})
        await alice.aput(("docs",), "b", {"title": "no text field here"})
        await alice.aput(("docs",), "c", {"note": "cat"}, index=["note"])

        found = await alice.asearch(("docs",), query="cat")

        assert [item.key for item in found] == ["c", "a"], "b has nothing to embed; c's own field is its note"
        [raw] = await store.backend.asearch((subject_label("alice"), "docs"), filter={"title": "no text field here"})
        assert VECTORS_FIELD not in raw.value


async def test_a_value_holding_the_vectors_field_is_refused_with_or_without_an_index(
    open_store: Callable[[Sealer | None], Any],
) -> None:
    async with open_store(None) as store:
        alice = store.for_subject("alice")
        with pytest.raises(StoreReservedField):
            await alice.aput(("docs",), "a", {VECTORS_FIELD: "mine"})
        store.use_index(StoreIndex(bag_of_words, dims=DIMS))
        with pytest.raises(StoreReservedField):
            await alice.aput(("docs",), "a", {"text": "x", VECTORS_FIELD: "mine"})
        assert await alice.aget(("docs",), "a") is None


@pytest.mark.parametrize(
    ("embed", "said"),
    [
        (lambda texts: [[1.0] * 3 for _ in texts], "answered 1 vectors of [3] dimensions for 1 texts"),
        (lambda texts: [], "answered 0 vectors"),
        (lambda texts: 1 / 0, "the embedding function failed: ZeroDivisionError"),
    ],
    ids=["wrong-dims", "too-few", "raises"],
)
async def test_an_embedding_function_that_fails_writes_nothing(
    open_store: Callable[[Sealer | None], Any],
    embed: Any,
    said: str,
) -> None:
    async with open_store(None) as store:
        store.use_index(StoreIndex(embed, dims=DIMS))
        alice = store.for_subject("alice")
        with pytest.raises(StoreIndexFailed, match=said.replace("[", r"\[").replace("]", r"\]")):
            await alice.aput(("docs",), "a", {"text": "x"})
        assert await alice.aget(("docs",), "a") is None


async def test_an_async_embedding_function_and_the_vectors_encoding(tmp_path: Any) -> None:
    async def embed(texts: list[str]) -> list[list[float]]:
        return bag_of_words(texts)

    index = StoreIndex(embed, dims=DIMS, fields=["$"])
    stored = await index.indexed({"text": "green tea"}, None)
    flat = base64.b64decode(stored[VECTORS_FIELD])
    assert len(flat) == 4 * DIMS, "one float32 vector: the whole value as one text"
    assert await index.indexed({"text": "x"}, False) == {"text": "x"}
    assert len(await index.query_vector("tea")) == DIMS
