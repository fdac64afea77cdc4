"""The long-term store on both backends: each subject's namespaces, values sealed at rest, TTLs swept, erasure."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.sqlite.aio import AsyncSqliteStore

from agent.encryption import EncryptionKey
from agent.graphs import load_graphs, read_graphs_config
from agent.sealing import PlainValueError, Sealer, TamperedError
from agent.stores import STORE_SUBJECT_KEY, GraphStore, StoreIndexUnconfigured, StoreOutsideRun, subject_label
from agent.stores.graph_store.sqlite import open_sqlite_graph_store
from tests.support.graph_projects import isolated_loading, write_project

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from agent.stores import SubjectStore


def _sealer() -> Sealer:
    return Sealer(EncryptionKey(os.urandom(32)))


async def test_each_subject_sees_only_its_own_namespaces(open_store: Callable[[Sealer | None], Any]) -> None:
    async with open_store(None) as store:
        alice, bob = store.for_subject("alice"), store.for_subject("bob")
        await alice.aput(("memories", "food"), "tea", {"likes": True})
        await bob.aput(("memories",), "coffee", {"likes": True})

        assert (await alice.aget(("memories", "food"), "tea")).value == {"likes": True}  # type: ignore[union-attr]
        assert await bob.aget(("memories", "food"), "tea") is None
        assert [item.key for item in await alice.asearch(())] == ["tea"]
        assert [item.namespace for item in await bob.asearch(("memories",))] == [("memories",)]
        assert await alice.alist_namespaces() == [("memories", "food")]
        assert await bob.alist_namespaces() == [("memories",)]
        assert await store.for_subject(None).alist_namespaces() == []


async def test_a_query_needs_an_index(open_store: Callable[[Sealer | None], Any]) -> None:
    async with open_store(None) as store:
        with pytest.raises(StoreIndexUnconfigured):
            await store.for_subject("alice").asearch(("memories",), query="what does alice drink?")


async def test_sealed_values_open_where_they_were_written_and_filter_in_python(
    open_store: Callable[[Sealer | None], Any],
) -> None:
    async with open_store(_sealer()) as store:
        alice = store.for_subject("alice")
        for n in range(5):
            await alice.aput(("notes",), f"n{n}", {"n": n, "kind": "even" if n % 2 == 0 else "odd"})
        [stored] = await store.backend.asearch((subject_label("alice"), "notes"), filter=None, limit=1)
        assert set(stored.value) == {"__sealed__"}

        evens = await alice.asearch(("notes",), filter={"kind": "even"}, limit=2, offset=1)
        assert len(evens) == 2
        assert all(item.value["kind"] == "even" for item in evens)
        assert {item.key for item in await alice.asearch(("notes",), filter={"n": {"$gte": 3}})} == {"n3", "n4"}

        # a sealed value moved to bob's namespace fails its tag there
        moved = (subject_label("bob"), "notes")
        await store.backend.aput(moved, "n0", stored.value)
        with pytest.raises(TamperedError):
            await store.for_subject("bob").aget(("notes",), "n0")
        # a plain value where a key is set is refused
        await store.backend.aput((subject_label("alice"), "notes"), "planted", {"n": 9})
        with pytest.raises(PlainValueError):
            await alice.aget(("notes",), "planted")


async def test_an_expired_item_is_swept(open_store: Callable[[Sealer | None], Any]) -> None:
    async with open_store(None) as store:
        alice = store.for_subject("alice")
        await alice.aput(("sessions",), "brief", {"v": 1}, ttl=1)
        await alice.aput(("sessions",), "kept", {"v": 2}, ttl=60)
        await alice.aput(("sessions",), "forever", {"v": 3})
        await _expire(store, "brief")  # its minute has passed, without waiting for it
        assert await store.sweep() == 1
        assert {item.key for item in await alice.asearch(("sessions",))} == {"kept", "forever"}


async def test_reading_an_item_renews_its_ttl(open_store: Callable[[Sealer | None], Any]) -> None:
    async with open_store(_sealer()) as store:
        alice = store.for_subject("alice")
        await alice.aput(("sessions",), "read", {"v": 1}, ttl=1)
        await alice.aput(("sessions",), "searched", {"v": 2}, ttl=1)
        await alice.aput(("sessions",), "unread", {"v": 3}, ttl=1)
        for key in ("read", "searched", "unread"):
            await _expire(store, key)
        assert await alice.aget(("sessions",), "read", refresh_ttl=True) is not None
        assert [item.key for item in await alice.asearch(("sessions",), filter={"v": 2})] == ["searched"]
        assert await alice.aget(("sessions",), "unread", refresh_ttl=False) is not None
        assert await store.sweep() == 1
        assert {item.key for item in await alice.asearch(("sessions",))} == {"read", "searched"}


async def _expire(store: GraphStore, key: str) -> None:
    """Move the expiry of the item ``key`` into the past, as a clock would."""
    backend: Any = store.backend
    if isinstance(backend, AsyncSqliteStore):
        async with backend.lock:
            await backend.conn.execute("UPDATE store SET expires_at = '2000-01-01 00:00:00' WHERE key = ?", (key,))
        return
    async with backend.conn.connection() as connection:
        await connection.execute("UPDATE store SET expires_at = now() - interval '1 minute' WHERE key = %s", (key,))


async def test_erasing_a_subject_removes_its_items_alone(open_store: Callable[[Sealer | None], Any]) -> None:
    async with open_store(_sealer()) as store:
        alice, bob = store.for_subject("alice"), store.for_subject("bob")
        await store.backend.abatch(
            [PutOp((subject_label("alice"), "bulk"), f"k{n}", {"n": n}) for n in range(3)]
        )  # raw puts: what the erasure removes is what is stored, sealed or not
        await alice.aput(("memories",), "tea", {"likes": True})
        await bob.aput(("memories",), "coffee", {"likes": True})
        assert await store.erase_subject("alice") == 4
        assert await alice.alist_namespaces() == []
        assert [item.key for item in await bob.asearch(())] == ["coffee"]


async def test_the_graphs_store_is_the_runs_subjects(open_store: Callable[[Sealer | None], Any]) -> None:
    from langchain_core.runnables import RunnableLambda

    async with open_store(None) as store:
        runs: SubjectStore = store.for_runs()
        with pytest.raises(StoreOutsideRun):
            await runs.aput(("memories",), "tea", {"likes": True})

        async def node(_: object) -> None:
            await runs.aput(("memories",), "tea", {"likes": True})

        def sync_node(_: object) -> list[str]:
            return [item.key for item in runs.search(("memories",))]

        config: Any = {"configurable": {STORE_SUBJECT_KEY: subject_label("alice")}}
        await RunnableLambda(node).ainvoke(None, config)
        assert await RunnableLambda(sync_node).ainvoke(None, config) == ["tea"]
        assert [item.key for item in await store.for_subject("alice").asearch(())] == ["tea"]
        assert await store.for_subject("bob").asearch(()) == []


STORED_GRAPHS = """
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict


class State(TypedDict):
    n: int


def build():
    builder = StateGraph(State)
    builder.add_node("step", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder


builder = build()
own_store = build().compile(store=InMemoryStore())


def factory(config):
    return build()
"""


@pytest.fixture
def loading(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    yield from isolated_loading(monkeypatch, tmp_path)


@pytest.mark.usefixtures("loading")
async def test_every_kind_of_graph_gets_the_services_store(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    graphs = {"builder": "./graphs.py:builder", "own": "./graphs.py:own_store", "factory": "./graphs.py:factory"}
    path = write_project(tmp_path, {"graphs.py": STORED_GRAPHS, "langgraph.json": {"graphs": graphs}})
    async with open_sqlite_graph_store(tmp_path / "store.sqlite") as store:
        runs = store.for_runs()
        loaded = await load_graphs(read_graphs_config(path), None, runs)
        for each in loaded:
            assert each.probe.store is runs
            async with each.graph_for({"configurable": {}}) as graph:
                assert graph.store is runs
    assert "graph 'own' was compiled with its own store (InMemoryStore); it runs with the service's instead" in (
        caplog.messages
    )
