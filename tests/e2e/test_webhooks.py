"""Webhooks with real ``harness serve`` processes and a receiver of the test's own (uvicorn on loopback, allowed by
``HARNESS_WEBHOOK_ALLOWED_HOSTS=127.0.0.1``), driven by langgraph-sdk's ``runs.create(..., webhook=url)``.

Embedded stores, one instance: a webhook to a host not listed is a 422 naming the setting; a run is POSTed once it
ends, its body the run as ``GET /threads/{thread_id}/runs/{run_id}`` answers, its signature verifying; a receiver that
answers 503 twice then 200 gets it three times, once successfully; a run paused at an interrupt is delivered only when
it ends after its resume; a run ended by its thread's erasure is not delivered.

Shared stores, two instances: the instance holding a delivery whose receiver has not answered is killed with
``kill -9``; the other delivers it once its lease has run out; each run is delivered successfully exactly once by the
receiver's count, a run the killed instance was executing (ended ``instance_lost`` by the survivor) is delivered too,
and the outbox is left empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import psycopg
import pytest
import uvicorn
from langgraph_sdk import get_client

from api.webhooks import verify
from tests.e2e.agent_protocol.turns import EXAMPLES, REFUND
from tests.e2e.conftest import free_port
from tests.support.graph_projects import write_project
from tests.support.harness_process import HarnessProcess
from tests.support.metrics import scrape
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

LOOKUP = {"messages": [{"role": "user", "content": "Where is my order A-1002?"}]}
APPROVE: Any = {"resume": {"decision": "approve"}}
SECRET = "whsec_" + "c2VjcmV0IG9mIHRoZSB0ZXN0cw=="  # base64 of "secret of the tests"
PATIENCE_S = 60
HOLD = 0
"""An answer of the receiver's plan: hold the request unanswered (until the test ends)."""


@pytest.fixture(autouse=True)
def fake_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The instances run the example with its scripted fake chat model."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)


class Received(msgspec.Struct):
    path: str
    headers: dict[str, str]
    body: bytes
    status: int


class Receiver:
    """A webhook receiver: answers each POST to a path with the next status planned for it (200 once none is left;
    ``HOLD``: no answer), and keeps what it was sent."""

    def __init__(self) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        self.plans: dict[str, list[int]] = {}
        self.received: list[Received] = []
        self._release = asyncio.Event()
        port = int(self.url.rsplit(":", 1)[1])
        self._server = uvicorn.Server(
            uvicorn.Config(self, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
        )
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        plan = self.plans.get(scope["path"], [])
        status = plan.pop(0) if plan else 200
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        self.received.append(Received(scope["path"], headers, body, status))
        if status == HOLD:
            await self._release.wait()
            status = 500
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def __aenter__(self) -> Receiver:
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._release.set()
        self._server.should_exit = True
        if self._task is not None:
            await self._task

    def to(self, path: str) -> list[Received]:
        return [received for received in self.received if received.path == path]

    def delivered(self, path: str) -> list[Received]:
        return [received for received in self.to(path) if received.status == 200]


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {PATIENCE_S} s")
        await asyncio.sleep(0.05)


SLOW = """
    import asyncio

    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict


    class State(TypedDict, total=False):
        done: bool


    async def wait(state: State) -> State:
        await asyncio.sleep(3600)
        return {"done": True}


    graph = StateGraph(State).add_node("wait", wait).add_edge(START, "wait").add_edge("wait", END).compile()
"""
"""A graph whose run goes on until its instance dies."""


def project(folder: Path) -> Path:
    return write_project(
        folder,
        {
            "slow.py": SLOW,
            "langgraph.json": {
                "dependencies": [str(EXAMPLES / "shared")],
                "graphs": {
                    "react_agent": f"{EXAMPLES / 'react_agent' / 'react_agent.py'}:graph",
                    "slow": "./slow.py:graph",
                },
            },
        },
    )


def webhook_env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {
        "HARNESS_CONFIG": str(project(tmp_path / "project")),
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
        "HARNESS_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
        "HARNESS_WEBHOOK_SECRET": SECRET,
        "HARNESS_WEBHOOK_BACKOFF_S": "0.2",
        "HARNESS_WEBHOOK_TICK_S": "0.2",
        **more,
    }


def pending(database_url: str) -> int:
    """Deliveries left in the shared outbox."""
    with psycopg.connect(database_url, autocommit=True) as connection:
        row = connection.execute("SELECT count(*) FROM harness_webhook_deliveries").fetchone()
    return int(row[0]) if row is not None else 0


def looks(outbox: Path, run_id: str) -> int:
    """How many times the embedded outbox's sender looked at the run's delivery before it ended (-1: no delivery)."""
    with contextlib.closing(sqlite3.connect(outbox)) as db:
        row = db.execute("SELECT checks FROM webhook_deliveries WHERE run_id = ?", (run_id,)).fetchone()
    return -1 if row is None else int(row[0])


def signed(received: Received) -> bool:
    return verify(b"secret of the tests", received.headers, received.body, now=int(time.time()))


async def test_one_instance_delivers_each_ended_run_once_signed_retrying_503s(tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        receiver = await stack.enter_async_context(Receiver())
        receiver.plans["/flaky"] = [503, 503]
        process = HarnessProcess(webhook_env(tmp_path, HARNESS_DATA_DIR=str(tmp_path / "data")))
        stack.callback(process.close)
        await process.start()
        sdk = await stack.enter_async_context(get_client(url=process.url, timeout=60))
        client = await stack.enter_async_context(httpx.AsyncClient(base_url=process.url, timeout=30))

        thread_id = (await sdk.threads.create())["thread_id"]
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await sdk.runs.create(thread_id, "react_agent", input=LOOKUP, webhook="https://hooks.example.com/x")
        run = await sdk.runs.create(thread_id, "react_agent", input=LOOKUP, webhook=f"{receiver.url}/flaky")
        await until(lambda: receiver.delivered("/flaky") != [], "the run delivered")
        shown = (await client.get(f"/threads/{thread_id}/runs/{run['run_id']}")).json()

        paused_thread = (await sdk.threads.create())["thread_id"]
        paused = await sdk.runs.create(paused_thread, "react_agent", input=REFUND, webhook=f"{receiver.url}/paused")
        await sdk.runs.join(paused_thread, paused["run_id"])
        outbox = tmp_path / "data" / "webhooks.sqlite"
        await until(lambda: looks(outbox, paused["run_id"]) >= 3, "three looks of the sender at the paused run")
        sent_while_paused = len(receiver.to("/paused"))
        await sdk.runs.wait(paused_thread, "react_agent", command=APPROVE)
        await until(lambda: receiver.delivered("/paused") != [], "the resumed run delivered")
        await until(lambda: looks(outbox, paused["run_id"]) < 0, "the delivery removed from the outbox")
        (final,) = receiver.delivered("/paused")

        erased_thread = (await sdk.threads.create())["thread_id"]
        erased = await sdk.runs.create(erased_thread, "react_agent", input=REFUND, webhook=f"{receiver.url}/erased")
        await sdk.runs.join(erased_thread, erased["run_id"])
        await until(lambda: looks(outbox, erased["run_id"]) >= 1, "the sender looked at the paused run")
        await sdk.threads.delete(erased_thread)  # ends the waiting run, then erases the thread
        left_after_erasure = looks(outbox, erased["run_id"])
        last = await sdk.runs.create(thread_id, "react_agent", input=LOOKUP, webhook=f"{receiver.url}/after-erasure")
        await until(lambda: receiver.delivered("/after-erasure") != [], "a run after the erasure delivered")
        await until(lambda: looks(outbox, last["run_id"]) < 0, "its delivery removed (and counted)")
        metrics = await scrape(client)

    problem = refused.value.response
    assert problem.status_code == 422
    assert problem.headers["content-type"].startswith("application/problem+json")
    assert problem.json()["code"] == "webhook_not_allowed"
    assert "HARNESS_WEBHOOK_ALLOWED_HOSTS" in problem.json()["detail"]
    assert [received.status for received in receiver.to("/flaky")] == [503, 503, 200]
    (delivered,) = receiver.delivered("/flaky")
    assert msgspec.json.decode(delivered.body) == shown
    assert shown["status"] == "success"
    assert delivered.headers["content-type"] == "application/json"
    assert delivered.headers["webhook-id"] == run["run_id"]
    assert all(signed(received) for received in receiver.to("/flaky"))
    assert sent_while_paused == 0, "a pause at an interrupt is not an end"
    assert msgspec.json.decode(final.body)["run_id"] == paused["run_id"]
    assert msgspec.json.decode(final.body)["status"] == "success"
    assert signed(final)
    assert left_after_erasure == -1
    assert receiver.to("/erased") == [], "a run its thread's erasure ended is not delivered"
    counted = {
        outcome: metrics.value("harness_webhook_deliveries_total", outcome=outcome)
        for outcome in ("delivered", "retried", "failed")
    }
    assert counted == {"delivered": 3, "retried": 2, "failed": 0}


async def test_a_delivery_held_by_an_instance_killed_is_made_by_the_other_once(tmp_path: Path) -> None:
    with fresh_shared_stores() as shared:
        env = webhook_env(tmp_path, HARNESS_WEBHOOK_TIMEOUT_S="6", HARNESS_RUN_LEASE_S="2", **shared.env)
        async with AsyncExitStack() as stack:
            receiver = await stack.enter_async_context(Receiver())
            receiver.plans["/held"] = [HOLD]
            processes = [HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / f"data-{n}")}) for n in (1, 2)]
            for process in processes:
                stack.callback(process.close)
            await asyncio.gather(*(process.start() for process in processes))
            first = await stack.enter_async_context(get_client(url=processes[0].url, timeout=60))

            thread_id = (await first.threads.create())["thread_id"]
            held = await first.runs.create(thread_id, "react_agent", input=LOOKUP, webhook=f"{receiver.url}/held")
            await until(lambda: receiver.to("/held") != [], "the first attempt")
            with psycopg.connect(shared.database_url, autocommit=True) as connection:
                row = connection.execute(
                    "SELECT holder FROM harness_webhook_deliveries WHERE run_id = %s", (held["run_id"],)
                ).fetchone()
            assert row is not None
            holder_pid = int(str(row[0]).split(":")[1])
            (holding,) = [process for process in processes if process.process and process.process.pid == holder_pid]
            (survivor,) = [process for process in processes if process is not holding]
            on_holder = await stack.enter_async_context(get_client(url=holding.url, timeout=60))
            slow_thread = (await on_holder.threads.create())["thread_id"]
            lost = await on_holder.runs.create(slow_thread, "slow", input={}, webhook=f"{receiver.url}/lost")
            holding.kill()

            await until(lambda: receiver.delivered("/held") != [], "the held delivery made by the survivor")
            second = await stack.enter_async_context(get_client(url=survivor.url, timeout=60))
            after = await second.runs.create(thread_id, "react_agent", input=LOOKUP, webhook=f"{receiver.url}/after")
            await until(lambda: receiver.delivered("/after") != [], "a run after the kill delivered")
            shown = await second.runs.get(thread_id, held["run_id"])
            await until(lambda: receiver.delivered("/lost") != [], "the run lost with its instance delivered")
            lost_shown = await second.runs.get(slow_thread, lost["run_id"])
            await until(lambda: pending(shared.database_url) == 0, "the outbox emptied")
            survivor_log = survivor.stderr()

    assert [received.status for received in receiver.to("/held")] == [HOLD, 200]
    (delivered,) = receiver.delivered("/held")
    assert msgspec.json.decode(delivered.body) == shown
    assert delivered.headers["webhook-id"] == held["run_id"]
    assert signed(delivered)
    assert "Traceback" not in survivor_log
    (ended_elsewhere,) = receiver.delivered("/lost")
    assert msgspec.json.decode(ended_elsewhere.body) == lost_shown
    assert lost_shown["status"] == "error", "ended instance_lost by the survivor"
    (later,) = receiver.delivered("/after")
    assert msgspec.json.decode(later.body)["run_id"] == after["run_id"]
