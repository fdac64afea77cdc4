"""Threads through langgraph-sdk: a thread is a session of the service, found by metadata and status, erased
on delete."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest
from langgraph_sdk.errors import ConflictError, NotFoundError

from tests.e2e.agent_protocol.turns import REFUND, agent_server_id, collect

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient

    from tests.e2e.conftest import LiveServer

CLIENTS_ID = "0b8f5c1e-7d2a-4c3b-9e6f-a1b2c3d4e5f6"
"""A thread id of the client's, a uuid as SDK users make them."""


async def test_a_created_thread_is_read_back_with_its_metadata(sdk: LangGraphClient) -> None:
    created = await sdk.threads.create(metadata={"customer": "c-1"})
    read = await sdk.threads.get(created["thread_id"])

    assert created["thread_id"].startswith("s_")
    assert read["thread_id"] == created["thread_id"]
    assert read["metadata"]["customer"] == "c-1"
    assert read["status"] == "idle"
    assert read["values"] is None, "no run has written a checkpoint yet"
    assert read["interrupts"] == {}


async def test_a_thread_of_the_clients_id_is_created_once(sdk: LangGraphClient) -> None:
    first = await sdk.threads.create(thread_id=CLIENTS_ID, metadata={"n": 1})
    again = await sdk.threads.create(thread_id=CLIENTS_ID, metadata={"n": 2}, if_exists="do_nothing")

    assert first["thread_id"] == again["thread_id"] == CLIENTS_ID
    assert again["metadata"]["n"] == 1, "do_nothing keeps the thread as it was"
    with pytest.raises(ConflictError) as exists:
        await sdk.threads.create(thread_id=CLIENTS_ID)
    assert exists.value.code == "thread_exists"


async def test_search_filters_by_metadata_and_status_and_sorts_by_status(sdk: LangGraphClient) -> None:
    idle = await sdk.threads.create(metadata={"team": "blue"})
    waiting = await sdk.threads.create(metadata={"team": "blue"})
    await sdk.threads.create(metadata={"team": "red"})
    await collect(sdk.runs.stream(waiting["thread_id"], "react_agent", input=REFUND))

    blue = await sdk.threads.search(metadata={"team": "blue"})
    interrupted = await sdk.threads.search(status="interrupted")
    blue_idle = await sdk.threads.search(metadata={"team": "blue"}, status="idle")
    by_status = await sdk.threads.search(metadata={"team": "blue"}, sort_by="status", sort_order="asc")
    by_status_desc = await sdk.threads.search(metadata={"team": "blue"}, sort_by="status", sort_order="desc")

    assert {thread["thread_id"] for thread in blue} == {idle["thread_id"], waiting["thread_id"]}
    assert [thread["thread_id"] for thread in interrupted] == [waiting["thread_id"]]
    assert [thread["thread_id"] for thread in blue_idle] == [idle["thread_id"]]
    assert [thread["status"] for thread in by_status] == ["idle", "interrupted"]
    assert [thread["status"] for thread in by_status_desc] == ["interrupted", "idle"]


async def test_a_thread_that_ran_a_graph_is_found_by_its_graph_id(sdk: LangGraphClient) -> None:
    """What the LangGraph UIs (Agent Chat UI, Studio) search by to list an assistant's threads: its graph id, or its
    assistant id."""
    ran = await sdk.threads.create()
    await sdk.threads.create()
    await collect(sdk.runs.stream(ran["thread_id"], "react_agent", input=REFUND))

    found = await sdk.threads.search(metadata={"graph_id": "react_agent"})
    by_assistant = await sdk.threads.search(metadata={"assistant_id": agent_server_id("react_agent")})

    assert [thread["thread_id"] for thread in found] == [ran["thread_id"]]
    assert found[0]["metadata"]["graph_id"] == "react_agent"
    assert by_assistant == found


async def test_a_deleted_thread_is_gone(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()
    await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND))

    await sdk.threads.delete(thread["thread_id"])

    with pytest.raises(NotFoundError) as gone:
        await sdk.threads.get(thread["thread_id"])
    assert gone.value.code == "session_not_found"
    assert gone.value.response.headers["content-type"].startswith("application/problem+json")
    assert await sdk.threads.search(ids=[thread["thread_id"]]) == []
    with pytest.raises(NotFoundError):
        await sdk.threads.delete(thread["thread_id"])


async def test_options_on_a_thread_allows_what_its_path_serves(examples: LiveServer, sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()

    async with httpx.AsyncClient(base_url=examples.url) as client:
        answer = await client.options(f"/threads/{thread['thread_id']}")

    assert answer.status_code == 204
    assert {method.strip() for method in answer.headers["allow"].split(",")} == {"DELETE", "GET", "OPTIONS"}
