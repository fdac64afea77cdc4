"""A run that waits at several interrupts at once (two branches each asking a person): the approvals inbox lists
each with its interrupt's id, and each is answered alone, by that id, the way the SPA's inbox sends it
(langgraph-sdk's ``runs.create`` with ``command.resume`` keyed by the id); the other goes on waiting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest
from langgraph_sdk import get_client

from tests.support.graph_projects import write_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

TWO_APPROVALS = """
    import operator
    from typing import Annotated

    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt
    from typing_extensions import TypedDict


    class State(TypedDict, total=False):
        decided: Annotated[list[str], operator.add]


    def ask(action: str):
        def node(state: State) -> State:
            answer = interrupt({"action": action, "summary": f"{action} for order A-1001"})
            return {"decided": [f"{action}: {answer['decision']}"]}

        return node


    graph = (
        StateGraph(State)
        .add_node("refund", ask("issue_refund"))
        .add_node("reship", ask("reship_order"))
        .add_edge(START, "refund")
        .add_edge(START, "reship")
        .add_edge("refund", END)
        .add_edge("reship", END)
        .compile(name="two_approvals")
    )
"""


@pytest.fixture
async def two_approvals(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> AsyncIterator[tuple[LiveServer, LangGraphClient]]:
    config = write_project(
        tmp_path / "two", {"two.py": TWO_APPROVALS, "langgraph.json": {"graphs": {"two": "./two.py:graph"}}}
    )
    served = serve(msgspec.structs.replace(settings, graphs_config=config))
    async with get_client(url=served.url, timeout=30) as client:
        yield served, client


def inbox(server: LiveServer) -> list[dict[str, Any]]:
    approvals: list[dict[str, Any]] = httpx.get(f"{server.url}/approvals").json()["approvals"]
    return approvals


async def test_each_of_several_interrupts_is_listed_and_answered_alone(
    two_approvals: tuple[LiveServer, LangGraphClient],
) -> None:
    server, sdk = two_approvals
    thread = await sdk.threads.create()
    await sdk.runs.wait(thread["thread_id"], "two", input={})

    waiting = inbox(server)
    assert sorted(item["action"] for item in waiting) == ["issue_refund", "reship_order"]
    ids = {item["action"]: item["interrupt_id"] for item in waiting}
    assert len(set(ids.values())) == 2, "each interrupt is named by its own id"
    assert {item["approval_id"] for item in waiting} == set(ids.values())
    assert len({item["run_id"] for item in waiting}) == 1, "one run waits at both"

    resume = {ids["issue_refund"]: {"decision": "approve"}}
    await sdk.runs.wait(thread["thread_id"], "two", command={"resume": resume})
    (left,) = inbox(server)
    assert (left["action"], left["interrupt_id"]) == ("reship_order", ids["reship_order"]), "the other still waits"
    assert (await sdk.threads.get_state(thread["thread_id"]))["values"]["decided"] == ["issue_refund: approve"]

    resume = {ids["reship_order"]: {"decision": "reject"}}
    await sdk.runs.wait(thread["thread_id"], "two", command={"resume": resume})
    assert inbox(server) == []
    state = await sdk.threads.get_state(thread["thread_id"])
    assert sorted(state["values"]["decided"]) == ["issue_refund: approve", "reship_order: reject"]
