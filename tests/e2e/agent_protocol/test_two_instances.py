"""Two ``harness serve`` instances on the same Redis and PostgreSQL are one Agent Server to langgraph-sdk.

Every test starts two real instances (child processes, as operators run them) on fresh shared stores, each
serving the examples or the tests' gated project, with an SDK client on each: a thread, a run's stream, an
interrupt, a cancel and an owner made on one instance are the same on the other.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack, aclosing
from typing import TYPE_CHECKING, Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError

from tests.e2e.agent_protocol.turns import (
    ALICE,
    BOB,
    EXAMPLES,
    GATED_GRAPH,
    REFUND,
    REFUND_APPROVAL,
    REPORT,
    TOPIC,
    collect,
    data_of,
)
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient
    from langgraph_sdk.schema import StreamPart

    from tests.support.shared_stores import SharedStores

MODES: Any = ["updates", "custom"]
APPROVE = {"decision": "approve"}
REFUNDED = "Refunded 42.00 EUR for order A-1001."


class Pair:
    """Two instances on the same stores, ``a`` and ``b``, and an SDK client on each."""

    def __init__(self, a: HarnessProcess, b: HarnessProcess, on_a: LangGraphClient, on_b: LangGraphClient) -> None:
        self.a, self.b = a, b
        self.on_a, self.on_b = on_a, on_b


@pytest.fixture
def shared() -> Iterator[SharedStores]:
    with fresh_shared_stores() as stores:
        yield stores


@pytest.fixture
async def two(shared: SharedStores, tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[Pair]]]:
    """Start two instances serving the ``langgraph.json`` given, and a client on each; all closed after the test."""
    async with AsyncExitStack() as stack:

        async def start(config: Path, *, headers: dict[str, str] | None = None, **env: str) -> Pair:
            instances: list[HarnessProcess] = []
            for name in ("a", "b"):
                process = HarnessProcess(
                    {
                        **shared.env,
                        "HARNESS_CONFIG": str(config),
                        "HARNESS_DATA_DIR": str(tmp_path / f"instance-{name}"),
                        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
                        **env,
                    }
                )
                stack.callback(process.close)
                instances.append(await process.start())
            a, b = instances
            on_a = await stack.enter_async_context(get_client(url=a.url, headers=headers, timeout=30))
            on_b = await stack.enter_async_context(get_client(url=b.url, headers=headers, timeout=30))
            return Pair(a, b, on_a, on_b)

        yield start


@pytest.fixture
def gated_project(tmp_path: Path) -> Path:
    """The tests' gated project (``turns.GATED_GRAPH``) as graph ``gated``: its ``langgraph.json``."""
    return write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )


def seen(parts: list[StreamPart]) -> list[tuple[str, Any, str | None]]:
    return [(part.event, part.data, part.id) for part in parts]


def ids(parts: list[StreamPart]) -> list[int]:
    return [int(part.id) for part in parts if part.id is not None]


async def test_a_thread_created_on_one_instance_is_the_same_thread_on_the_other(
    two: Callable[..., Awaitable[Pair]],
) -> None:
    pair = await two(EXAMPLES / "langgraph.json")
    thread = await pair.on_a.threads.create(metadata={"made_on": "a"})
    thread_id = thread["thread_id"]

    before = await pair.on_b.threads.get(thread_id)
    ran = await collect(pair.on_a.runs.stream(thread_id, "research", input=TOPIC, stream_mode="values"))
    on_a, on_b = await pair.on_a.threads.get(thread_id), await pair.on_b.threads.get(thread_id)
    found = await pair.on_b.threads.search(metadata={"made_on": "a"})
    state_a, state_b = await pair.on_a.threads.get_state(thread_id), await pair.on_b.threads.get_state(thread_id)
    (run_from_b,) = await pair.on_b.runs.list(thread_id)

    assert before == thread, "B reads the thread A created, as A answered it"
    assert before["metadata"]["made_on"] == "a"
    assert before["status"] == "idle"
    assert ran[-1].data == {"run_id": ran[0].data["run_id"], "status": "success"}
    assert on_b == on_a
    assert on_b["values"]["report"] == REPORT
    assert on_b["metadata"]["graph_id"] == "research"
    assert [found_thread["thread_id"] for found_thread in found] == [thread_id]
    assert found[0] == on_a
    assert state_b == state_a
    assert state_b["values"]["report"] == REPORT
    assert state_b["next"] == []
    assert (run_from_b["run_id"], run_from_b["status"]) == (ran[0].data["run_id"], "success")


async def test_a_run_streamed_on_one_instance_is_joined_mid_run_on_the_other_from_its_last_event(
    two: Callable[..., Awaitable[Pair]], gated_project: Path, tmp_path: Path
) -> None:
    pair = await two(gated_project)
    gate = tmp_path / "gate"
    thread_id = (await pair.on_a.threads.create())["thread_id"]
    head: list[StreamPart] = []
    async with aclosing(
        pair.on_a.runs.stream(thread_id, "gated", input={"gate": str(gate)}, stream_mode=MODES)
    ) as stream:
        async for part in stream:
            head.append(part)
            if part.event == "custom" and part.data == {"step": "first"}:
                break  # A's client drops before the run reaches its gate
    run_id = head[0].data["run_id"]

    held: list[StreamPart] = []
    rest: list[StreamPart] = []
    async with aclosing(
        pair.on_b.runs.join_stream(thread_id, run_id, stream_mode=MODES, last_event_id=head[-1].id)
    ) as joined:
        async for part in joined:
            (rest if gate.exists() else held).append(part)
            if part.event == "custom" and "holding" in part.data:
                # B follows the run while it holds on its gate: still running, from either side
                running = [(await client.runs.get(thread_id, run_id))["status"] for client in (pair.on_a, pair.on_b)]
                gate.touch()
    whole_a = await collect(pair.on_a.runs.join_stream(thread_id, run_id, stream_mode=MODES))
    whole_b = await collect(pair.on_b.runs.join_stream(thread_id, run_id, stream_mode=MODES))

    assert running == ["running", "running"]
    assert data_of(head, "custom") == [{"step": "first"}]
    assert data_of(held, "custom") == [{"holding": str(gate)}], "B begins after the last event A's client received"
    assert data_of(rest, "custom") == [{"step": "last"}], "and goes on live once the run goes on"
    assert rest[-1].event == "end"
    assert rest[-1].data == {"run_id": run_id, "status": "success"}
    assert seen(head) + seen(held) + seen(rest) == seen(whole_a), "nothing lost, nothing twice"
    assert seen(whole_b) == seen(whole_a)
    assert ids(whole_a) == sorted(set(ids(whole_a)))
    state = await pair.on_b.threads.get_state(thread_id)
    assert state["values"]["steps"] == ["first", "hold", "last"]


async def test_an_interrupt_reached_on_one_instance_is_resumed_on_the_other_in_the_same_run(
    two: Callable[..., Awaitable[Pair]],
) -> None:
    pair = await two(EXAMPLES / "langgraph.json")
    thread_id = (await pair.on_a.threads.create())["thread_id"]
    paused = await collect(pair.on_a.runs.stream(thread_id, "react_agent", input=REFUND, stream_mode=MODES))
    run_id = paused[0].data["run_id"]
    waiting = await pair.on_b.threads.get(thread_id)

    resumed = await collect(
        pair.on_b.runs.stream(thread_id, "react_agent", command={"resume": APPROVE}, stream_mode=MODES)
    )

    assert paused[-1].data == {"run_id": run_id, "status": "interrupted"}
    assert waiting["status"] == "interrupted"
    assert [interrupt["value"] for interrupt in waiting["interrupts"][""]] == [REFUND_APPROVAL]
    assert resumed[0].event == "metadata"
    assert resumed[0].data["run_id"] == run_id, "B resumes the run A paused"
    assert (resumed[-1].event, resumed[-1].data) == ("end", {"run_id": run_id, "status": "success"})
    assert min(ids(resumed)) > max(ids(paused)), "the run's events go on from where it paused"
    assert [next(iter(update)) for update in data_of(resumed, "updates")] == ["tools", "agent"]
    for client in (pair.on_a, pair.on_b):
        (run,) = await client.runs.list(thread_id)
        assert (run["run_id"], run["status"]) == (run_id, "success")
        thread = await client.threads.get(thread_id)
        assert (thread["status"], thread["interrupts"]) == ("idle", {})
        assert thread["values"]["messages"][-1]["content"] == REFUNDED
    for client in (pair.on_a, pair.on_b):
        whole = await collect(client.runs.join_stream(thread_id, run_id, stream_mode=MODES))
        assert seen(whole) == seen(paused[:-1]) + seen(resumed), "one run: its two halves, the pause's end left out"


async def test_a_run_executing_on_one_instance_is_cancelled_from_the_other(
    two: Callable[..., Awaitable[Pair]], gated_project: Path, tmp_path: Path
) -> None:
    pair = await two(gated_project)
    thread_id = (await pair.on_a.threads.create())["thread_id"]
    followed: list[StreamPart] = []
    stream = pair.on_a.runs.stream(thread_id, "gated", input={"gate": str(tmp_path / "never")}, stream_mode="custom")
    async with aclosing(stream) as parts:
        async for part in parts:
            followed.append(part)
            if part.event == "custom" and "holding" in part.data:
                run_id = followed[0].data["run_id"]
                running = (await pair.on_b.runs.get(thread_id, run_id))["status"]
                await pair.on_b.runs.cancel(thread_id, run_id)

    assert running == "running"
    assert data_of(followed, "custom") == [{"step": "first"}, {"holding": str(tmp_path / "never")}]
    assert [part.event for part in followed[-2:]] == ["error", "end"]
    assert followed[-2].data["error"] == "cancelled"
    assert followed[-1].data == {"run_id": run_id, "status": "interrupted"}
    for client in (pair.on_a, pair.on_b):
        assert (await client.runs.get(thread_id, run_id))["status"] == "interrupted"
        assert (await client.threads.get(thread_id))["status"] == "idle"
        state = await client.threads.get_state(thread_id)
        assert state["values"]["steps"] == ["first"], "the held node never finished"


async def test_a_thread_made_on_one_instance_is_not_found_by_another_subject_on_the_other(
    two: Callable[..., Awaitable[Pair]], tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
        {"token": BOB, "subject": "bob", "roles": ["user"], "account_id": "ACC-2002"},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    alice = await two(
        EXAMPLES / "langgraph.json", headers={"Authorization": f"Bearer {ALICE}"}, HARNESS_AUTH_TOKENS_FILE=str(tokens)
    )
    async with get_client(url=alice.b.url, headers={"Authorization": f"Bearer {BOB}"}, timeout=30) as bob:
        thread_id = (await alice.on_a.threads.create(metadata={"owner": "alice"}))["thread_id"]
        paused = await collect(alice.on_a.runs.stream(thread_id, "react_agent", input=REFUND))
        run_id = paused[0].data["run_id"]

        attempts: dict[str, Callable[[], Awaitable[object]]] = {
            "get": lambda: bob.threads.get(thread_id),
            "state": lambda: bob.threads.get_state(thread_id),
            "runs": lambda: bob.runs.list(thread_id),
            "run": lambda: bob.runs.get(thread_id, run_id),
            "join": lambda: collect(bob.runs.join_stream(thread_id, run_id)),
            "resume": lambda: collect(bob.runs.stream(thread_id, "react_agent", command={"resume": APPROVE})),
            "cancel": lambda: bob.runs.cancel(thread_id, run_id),
            "delete": lambda: bob.threads.delete(thread_id),
        }
        answered: dict[str, object] = {}
        for name, attempt in attempts.items():
            try:
                answered[name] = await attempt()
            except APIStatusError as refused:
                answered[name] = refused.status_code
        bobs_search = await bob.threads.search(metadata={"owner": "alice"})

    assert answered == dict.fromkeys(attempts, 404)
    assert bobs_search == []
    assert [found["thread_id"] for found in await alice.on_b.threads.search(metadata={"owner": "alice"})] == [thread_id]
    still = await alice.on_b.threads.get(thread_id)
    assert still["status"] == "interrupted", "nothing bob tried on B touched alice's run"
    resumed = await collect(alice.on_b.runs.stream(thread_id, "react_agent", command={"resume": APPROVE}))
    assert resumed[-1].data == {"run_id": run_id, "status": "success"}, "alice herself resumes it on B"
