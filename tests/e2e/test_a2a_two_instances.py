"""A task's stream cut on one instance resumes on the other, from the durable log, with nothing lost and nothing
twice: two ``harness serve`` instances (child processes) on fresh shared stores, the official ``a2a-sdk`` client
on each."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.client.client import ClientCallContext
from a2a.types.a2a_pb2 import GetTaskRequest, SubscribeToTaskRequest, TaskState

from tests.e2e.agent_protocol.turns import EXAMPLES, GATED_GRAPH, TOPIC
from tests.e2e.test_a2a import custom, data_request, events, seqs, states, texts
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable
    from pathlib import Path

    from a2a.client import Client


@pytest.fixture
async def two(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> AsyncIterator[Callable[[Path, str], Awaitable[tuple[Client, Client]]]]:
    """Start two instances serving a ``langgraph.json``; an A2A client of the graph on each."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    with fresh_shared_stores() as shared:
        async with AsyncExitStack() as stack:

            async def start(config: Path, graph_id: str) -> tuple[Client, Client]:
                clients = []
                for name in ("a", "b"):
                    process = HarnessProcess(
                        {
                            **shared.env,
                            "HARNESS_CONFIG": str(config),
                            "HARNESS_DATA_DIR": str(tmp_path / f"instance-{name}"),
                            "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
                        }
                    )
                    stack.callback(process.close)
                    await process.start()
                    http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
                    factory = ClientFactory(ClientConfig(httpx_client=http))
                    client = await factory.create_from_url(f"{process.url}/a2a/{graph_id}")
                    stack.push_async_callback(client.close)
                    clients.append(client)
                return clients[0], clients[1]

            yield start


async def test_a_stream_cut_on_one_instance_is_picked_up_on_the_other_where_the_task_stands(
    two: Callable[[Path, str], Awaitable[tuple[Client, Client]]], tmp_path: Path
) -> None:
    config = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    on_a, on_b = await two(config, "gated")
    gate = tmp_path / "gate"
    cut = await events(
        on_a.send_message(data_request({"gate": str(gate)})),
        until=lambda event: {"holding": str(gate)} in custom([event]),
    )
    task_id = cut[0].task.id

    subscription = on_b.subscribe(SubscribeToTaskRequest(id=task_id))
    first = await anext(subscription)
    gate.write_text("open")
    rest = [first, *await events(subscription)]

    standing = rest[0].task
    assert standing.status.state == TaskState.TASK_STATE_WORKING
    assert int(standing.metadata["seq"]) >= seqs(cut)[-1], "the task B shows holds all A sent"
    assert custom(cut) == [{"step": "first"}, {"holding": str(gate)}]
    after = seqs(rest)[1:]
    assert after == sorted(after)
    assert min(after) > int(standing.metadata["seq"]), "nothing the task holds comes again"
    assert custom(rest) == [{"step": "last"}], "nothing lost"
    assert states(rest)[-1] == TaskState.TASK_STATE_COMPLETED
    finished = await on_a.get_task(GetTaskRequest(id=task_id))
    assert finished.status.state == TaskState.TASK_STATE_COMPLETED


async def test_a_stream_cut_on_one_instance_resumes_on_the_other_after_its_last_event(
    two: Callable[[Path, str], Awaitable[tuple[Client, Client]]],
) -> None:
    on_a, on_b = await two(EXAMPLES / "langgraph.json", "research")
    whole = await events(on_a.send_message(data_request(TOPIC)))
    cut = await events(on_a.send_message(data_request(TOPIC)), until=lambda event: len(texts([event])) > 0)
    last = seqs(cut)[-1]

    context = ClientCallContext(service_parameters={"Last-Event-ID": str(last)})
    rest = await events(on_b.subscribe(SubscribeToTaskRequest(id=cut[0].task.id), context=context))

    assert int(rest[0].task.metadata["seq"]) == last
    assert min(seqs(rest)[1:]) > last
    assert texts(cut) + texts(rest) == texts(whole), "nothing lost, nothing twice"
    assert custom(cut) + custom(rest) == custom(whole)
    assert states(rest)[-1] == TaskState.TASK_STATE_COMPLETED
