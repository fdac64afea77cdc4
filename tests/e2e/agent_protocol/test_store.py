"""The long-term store through langgraph-sdk's ``client.store``, and as the ``BaseStore`` of a graph of the test's
own, on the embedded and the shared stores: what a graph remembers for alice across her threads is read back by
her client, and another subject finds nothing of it."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError

from agent.encryption import EncryptionKey
from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, BOB
from tests.support.graph_projects import write_project
from tests.support.shared_stores import DATABASE_URL

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.shared_stores import SharedStores

MEMORY_GRAPH = """
from __future__ import annotations

from typing import TypedDict

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore


class State(TypedDict, total=False):
    fact: str
    recalled: list[str]
    counted: int


async def remember(state: State, *, store: BaseStore) -> State:
    if state.get("fact"):
        await store.aput(("memories",), "latest", {"fact": state["fact"]})
    return {}


def recall(state: State) -> State:  # a sync node: the store's sync methods, from a worker thread
    return {"recalled": [item.value["fact"] for item in get_store().search(("memories",))]}


async def count(state: State, runtime: Runtime) -> State:
    assert runtime.store is not None
    seen = await runtime.store.aget(("counters",), "runs")
    counted = (seen.value["n"] if seen else 0) + 1
    await runtime.store.aput(("counters",), "runs", {"n": counted})
    return {"counted": counted}


builder = StateGraph(State)
builder.add_node("remember", remember)
builder.add_node("recall", recall)
builder.add_node("count", count)
builder.add_edge(START, "remember")
builder.add_edge("remember", "recall")
builder.add_edge("recall", "count")
builder.add_edge("count", END)
graph = builder.compile()
"""

SECRET_FACT = "prefers-oolong-tea-4711"


def _project(tmp_path: Path) -> Path:
    return write_project(
        tmp_path / "memory",
        {"memory.py": MEMORY_GRAPH, "langgraph.json": {"graphs": {"memory": "./memory.py:graph"}}},
    )


@pytest.fixture
def memory(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The memory graph, identity off."""
    return serve(msgspec.structs.replace(settings, graphs_config=_project(tmp_path)))


@pytest.fixture
async def sdk(memory: LiveServer) -> AsyncIterator[LangGraphClient]:
    async with get_client(url=memory.url, timeout=30) as client:
        yield client


@pytest.fixture
def guarded_memory(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The memory graph with identity on: alice (``ALICE``) and bob (``BOB``)."""
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
        {"token": BOB, "subject": "bob", "roles": ["user"], "account_id": "ACC-2002"},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    auth = AuthConfig(tokens_file=tokens)
    return serve(msgspec.structs.replace(settings, graphs_config=_project(tmp_path), auth=auth))


async def test_a_graph_remembers_across_threads_for_its_subject_alone(guarded_memory: LiveServer) -> None:
    async with (
        get_client(url=guarded_memory.url, headers={"Authorization": f"Bearer {ALICE}"}, timeout=30) as alice,
        get_client(url=guarded_memory.url, headers={"Authorization": f"Bearer {BOB}"}, timeout=30) as bob,
    ):
        first = await alice.threads.create()
        told = await alice.runs.wait(first["thread_id"], "memory", input={"fact": "likes tea"})
        assert told["recalled"] == ["likes tea"]
        second = await alice.threads.create()
        recalled = await alice.runs.wait(second["thread_id"], "memory", input={})
        assert recalled["recalled"] == ["likes tea"]
        assert recalled["counted"] == 2

        item = await alice.store.get_item(["memories"], "latest")
        assert item["namespace"] == ["memories"]
        assert item["value"] == {"fact": "likes tea"}
        assert (await alice.store.list_namespaces())["namespaces"] == [["counters"], ["memories"]]

        with pytest.raises(APIStatusError) as missing:
            await bob.store.get_item(["memories"], "latest")
        assert missing.value.response.status_code == 404
        assert (await bob.store.search_items(["memories"]))["items"] == []
        assert (await bob.store.search_items([]))["items"] == []
        assert (await bob.store.list_namespaces())["namespaces"] == []
        bobs = await bob.threads.create()
        assert (await bob.runs.wait(bobs["thread_id"], "memory", input={}))["recalled"] == []

        await bob.store.put_item(["memories"], "latest", {"fact": "likes coffee"})
        assert (await alice.store.get_item(["memories"], "latest"))["value"] == {"fact": "likes tea"}


async def test_items_put_read_searched_listed_and_deleted(sdk: LangGraphClient) -> None:
    await sdk.store.put_item(["docs", "alice"], "a", {"kind": "note", "n": 1})
    await sdk.store.put_item(["docs", "alice"], "b", {"kind": "todo", "n": 2})
    await sdk.store.put_item(["docs", "bob", "drafts"], "c", {"kind": "note", "n": 3})

    item = await sdk.store.get_item(["docs", "alice"], "a")
    assert {key: item[key] for key in ("namespace", "key", "value")} == {
        "namespace": ["docs", "alice"],
        "key": "a",
        "value": {"kind": "note", "n": 1},
    }
    assert item["created_at"].endswith("+00:00")

    notes = (await sdk.store.search_items(["docs"], filter={"kind": "note"}))["items"]
    assert sorted(found["key"] for found in notes) == ["a", "c"]
    above = (await sdk.store.search_items(["docs"], filter={"n": {"$gt": 1}}))["items"]
    assert sorted(found["key"] for found in above) == ["b", "c"]
    everything = (await sdk.store.search_items(["docs"], limit=10))["items"]
    paged = (await sdk.store.search_items(["docs"], limit=1, offset=1))["items"]
    assert len(everything) == 3
    assert [found["key"] for found in paged] == [everything[1]["key"]]

    listed = await sdk.store.list_namespaces(prefix=["docs"])
    assert listed["namespaces"] == [["docs", "alice"], ["docs", "bob", "drafts"]]
    assert (await sdk.store.list_namespaces(suffix=["drafts"]))["namespaces"] == [["docs", "bob", "drafts"]]
    assert (await sdk.store.list_namespaces(max_depth=2))["namespaces"] == [["docs", "alice"], ["docs", "bob"]]
    assert (await sdk.store.list_namespaces(prefix=["docs", "*"], max_depth=2, limit=1, offset=1))["namespaces"] == [
        ["docs", "bob"]
    ]

    await sdk.store.delete_item(["docs", "alice"], "a")
    with pytest.raises(APIStatusError) as gone:
        await sdk.store.get_item(["docs", "alice"], "a")
    assert gone.value.response.status_code == 404
    await sdk.store.delete_item(["docs", "alice"], "a")  # nothing to delete is not an error


async def test_an_item_with_a_ttl_is_kept_and_renewed_when_read(sdk: LangGraphClient) -> None:
    await sdk.store.put_item(["sessions"], "short", {"v": 1}, ttl=5)
    assert (await sdk.store.get_item(["sessions"], "short", refresh_ttl=True))["value"] == {"v": 1}
    assert [found["key"] for found in (await sdk.store.search_items(["sessions"], refresh_ttl=False))["items"]] == [
        "short"
    ]


async def test_a_query_without_an_embedding_index_is_a_problem(sdk: LangGraphClient, memory: LiveServer) -> None:
    with pytest.raises(APIStatusError) as refused:
        await sdk.store.search_items(["docs"], query="tea")
    assert refused.value.response.status_code == 422
    async with httpx.AsyncClient(base_url=memory.url) as client:
        answer = await client.post("/store/items/search", json={"namespace_prefix": [], "query": "tea"})
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "store_index_unconfigured"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"namespace": ["a.b"], "key": "k", "value": {}}, "validation_failed"),
        ({"namespace": [""], "key": "k", "value": {}}, "validation_failed"),
        ({"namespace": [], "key": "k", "value": {}}, "validation_failed"),
        ({"namespace": ["x" * 300], "key": "k", "value": {}}, "validation_failed"),
        ({"namespace": ["docs"], "key": "", "value": {}}, "validation_failed"),
        ({"namespace": ["docs"], "key": "k", "value": [1, 2]}, "validation_failed"),
        ({"namespace": ["docs"], "key": "k", "value": {}, "ttl": 0}, "validation_failed"),
        ({"namespace": ["langgraph"], "key": "k", "value": {}}, "store_request_invalid"),
        ({"namespace": ["4111111111111111"], "key": "k", "value": {}}, "id_refused"),
        ({"namespace": ["docs"], "key": "4111 1111 1111 1111", "value": {}}, "id_refused"),
    ],
)
async def test_what_the_store_refuses(memory: LiveServer, body: dict[str, Any], code: str) -> None:
    async with httpx.AsyncClient(base_url=memory.url) as client:
        answer = await client.put("/store/items", json=body)
        assert answer.status_code == 422, answer.text
        assert answer.json()["code"] == code
        bad_get = await client.get("/store/items", params={"namespace": "docs..x", "key": "k"})
        assert bad_get.status_code == 422
        assert (await client.post("/store/items/search", json={"namespace_prefix": ["a.b"]})).status_code == 422


async def test_values_are_sealed_at_rest(
    serve: Callable[..., LiveServer],
    settings: Settings,
    tmp_path: Path,
    stores: SharedStores | None,
) -> None:
    agent = msgspec.structs.replace(settings.agent, encryption_key=EncryptionKey(os.urandom(32)))
    served = serve(msgspec.structs.replace(settings, agent=agent, graphs_config=_project(tmp_path)))
    async with get_client(url=served.url, timeout=30) as client:
        await client.store.put_item(["vault"], "fact", {"secret": SECRET_FACT, "kind": "tea"})
        assert (await client.store.get_item(["vault"], "fact"))["value"]["secret"] == SECRET_FACT
        found = (await client.store.search_items(["vault"], filter={"kind": "tea"}))["items"]
        assert [item["key"] for item in found] == ["fact"]
        assert (await client.store.search_items(["vault"], filter={"kind": "coffee"}))["items"] == []
        if stores is None:
            files = list((settings.agent.data_dir).glob("store.sqlite*"))
            assert files
            assert not any(SECRET_FACT.encode() in file.read_bytes() for file in files)
        else:
            with psycopg.connect(DATABASE_URL, autocommit=True) as connection:
                rows = connection.execute(f'SELECT value::text FROM "{stores.schema}".store').fetchall()
            assert rows
            assert not any(SECRET_FACT in row[0] for row in rows)


EMBED = """
from __future__ import annotations

import math
import zlib

DIMS = 64


def embed(texts: list[str]) -> list[list[float]]:
    vectors = []
    for text in texts:
        if "explode" in text:
            raise RuntimeError("the embedding service is down")
        vector = [0.0] * DIMS
        for word in text.lower().split():
            vector[zlib.crc32(word.strip('.,?"').encode()) % DIMS] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        vectors.append([x / norm for x in vector])
    return vectors
"""

RECALL_GRAPH = """
from __future__ import annotations

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore


class State(TypedDict, total=False):
    question: str
    best: str


async def recall(state: State, *, store: BaseStore) -> State:
    found = await store.asearch(("memories",), query=state["question"], limit=1)
    return {"best": found[0].value["text"] if found else ""}


builder = StateGraph(State)
builder.add_node("recall", recall)
builder.add_edge(START, "recall")
builder.add_edge("recall", END)
graph = builder.compile()
"""


async def test_a_query_ranks_items_by_meaning_for_clients_and_graphs(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    project = write_project(
        tmp_path / "indexed",
        {
            "embed.py": EMBED,
            "recall.py": RECALL_GRAPH,
            "langgraph.json": {
                "graphs": {"recall": "./recall.py:graph"},
                "store": {"index": {"embed": "./embed.py:embed", "dims": 64, "fields": ["text"]}},
            },
        },
    )
    served = serve(msgspec.structs.replace(settings, graphs_config=project))
    async with get_client(url=served.url, timeout=30) as client:
        await client.store.put_item(["memories"], "tea", {"text": "alice drinks green tea every morning"})
        await client.store.put_item(["memories"], "cat", {"text": "alice has a black cat named pixel"})
        await client.store.put_item(["memories"], "bill", {"text": "the invoices are paid by card"})
        await client.store.put_item(["memories"], "hidden", {"text": "green tea every morning"}, index=False)

        ranked = (await client.store.search_items(["memories"], query="which tea does alice drink"))["items"]
        assert ranked[0]["key"] == "tea"
        assert "hidden" not in [item["key"] for item in ranked], "put with index=False is never ranked"
        scores = [item["score"] for item in ranked]
        assert scores == sorted(scores, reverse=True)
        assert all(set(item["value"]) == {"text"} for item in ranked), "the vectors are the store's, not the value's"

        thread = await client.threads.create()
        answered = await client.runs.wait(thread["thread_id"], "recall", input={"question": "alice black cat"})
        assert answered["best"] == "alice has a black cat named pixel", "a graph's store ranks the same way"

        with pytest.raises(APIStatusError) as failed:
            await client.store.put_item(["memories"], "boom", {"text": "explode"})
        assert failed.value.response.status_code == 503
        assert failed.value.response.json()["code"] == "store_index_failed"
        with pytest.raises(APIStatusError) as missing:
            await client.store.get_item(["memories"], "boom")
        assert missing.value.response.status_code == 404, "a put whose embedding failed wrote nothing"
    async with httpx.AsyncClient(base_url=served.url) as raw:
        reserved = await raw.put(
            "/store/items", json={"namespace": ["memories"], "key": "x", "value": {"__vectors__": "mine"}}
        )
    assert (reserved.status_code, reserved.json()["code"]) == (422, "store_request_invalid")
