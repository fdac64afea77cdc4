"""The sender: a run is POSTed once its stored record shows it ended (not while it runs or waits at an interrupt),
as ``GET /threads/{thread_id}/runs/{run_id}`` shows it, signed; retried after the schedule's waits on a 503, a 429 or
a dropped connection; final on a 404 or a redirect; given up after the most attempts; never sent to a name that
resolves to loopback unless that address is listed; each outcome counted; stopped even when its loop swallows the
cancellation that stops it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import httpx
import msgspec
import pytest

from api.runs.log.records import GraphRun, RunRecord
from api.webhooks import Delivery, WebhookSender, delivery_body, verify
from api.webhooks.settings import WebhookSettings
from api.webhooks.sqlite import SqliteOutbox
from contracts import RunSnapshot

if TYPE_CHECKING:
    from pathlib import Path

START_S = 1_800_000_000
URL = "http://127.0.0.1:9/hook"


class FakeClock:
    def __init__(self) -> None:
        self.now_s = float(START_S)

    def now_ns(self) -> int:
        return int(self.now_s * 1_000_000_000)


def record(status: str = "completed", url: str = URL) -> RunRecord:
    snapshot = RunSnapshot(
        run_id="r-1",
        session_id="s-1",
        status=status,  # type: ignore[arg-type]
        last_seq=3,
        started_at="2027-01-15T08:00:00Z",
        updated_at="2027-01-15T08:00:01Z",
        response=None,
        pending_approval=None,
        error=None,
    )
    graph = GraphRun(graph_id="g", assistant_id="a", modes=["values"], metadata={"k": "v"}, webhook=url)
    return RunRecord(snapshot=snapshot, graph=graph)


class Receiver:
    """Answers each POST with the next status of ``answers`` (an exception: the connection drops)."""

    def __init__(self, *answers: int | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return httpx.Response(answer, headers={"location": "http://127.0.0.1:9/elsewhere"})


class Harness:
    def __init__(self, tmp_path: Path, receiver: Receiver, **settings: object) -> None:
        self.clock = FakeClock()
        self.records: dict[str, RunRecord] = {}
        self.counted: list[str] = []
        options: dict[str, object] = {"allowed_hosts": frozenset({"127.0.0.1"}), "secret": "s3cret", **settings}
        self.settings = WebhookSettings(**options)  # type: ignore[arg-type]
        self.sender = WebhookSender(
            SqliteOutbox(tmp_path / "webhooks.sqlite"),
            self.settings,
            load_run=self.load,
            clock=self.clock,
            counted=self.counted.append,
            transport=httpx.MockTransport(receiver),
        )

    async def load(self, run_id: str) -> RunRecord | None:
        found = self.records.get(run_id)
        return None if found is None else msgspec.json.decode(msgspec.json.encode(found), type=RunRecord)

    async def after(self, seconds: float) -> None:
        self.clock.now_s += seconds
        await self.sender.deliver_due()


async def test_an_ended_run_is_posted_once_as_get_shows_it_signed(tmp_path: Path) -> None:
    receiver = Receiver(200)
    harness = Harness(tmp_path, receiver)
    harness.records["r-1"] = record("running")
    await harness.sender.expect(harness.records["r-1"])

    await harness.after(5)
    assert receiver.requests == [], "not while it runs"
    harness.records["r-1"] = record("waiting")
    await harness.after(60)
    assert receiver.requests == [], "a pause at an interrupt is not an end"
    harness.records["r-1"] = record("completed")
    harness.sender.ended("r-1")
    await harness.after(0)
    await harness.after(3600)

    (request,) = receiver.requests
    assert request.content == delivery_body(record("completed"))
    assert msgspec.json.decode(request.content)["status"] == "success"
    assert request.headers["host"] == "127.0.0.1:9"
    headers = {name.lower(): value for name, value in request.headers.items()}
    assert verify(b"s3cret", headers, request.content, now=START_S + 65)
    assert harness.counted == ["delivered"]


async def test_503_429_and_a_dropped_connection_are_retried_on_the_schedule(tmp_path: Path) -> None:
    receiver = Receiver(503, 429, httpx.ConnectError("refused"), 200)
    harness = Harness(tmp_path, receiver, backoff_s=2.0)
    harness.records["r-1"] = record()
    await harness.sender.expect(harness.records["r-1"])
    harness.sender.ended("r-1")

    await harness.after(0)
    await harness.after(1.9)
    assert len(receiver.requests) == 1, "the first retry waits 2 s"
    await harness.after(0.2)
    await harness.after(3.9)
    assert len(receiver.requests) == 2, "the second 4 s"
    await harness.after(0.2)
    await harness.after(8.1)

    assert len(receiver.requests) == 4
    assert harness.counted == ["retried", "retried", "retried", "delivered"]
    assert {request.headers["webhook-id"] for request in receiver.requests} == {"r-1"}


@pytest.mark.parametrize("status", [404, 302])
async def test_another_answer_is_final(tmp_path: Path, status: int) -> None:
    receiver = Receiver(status)
    harness = Harness(tmp_path, receiver)
    harness.records["r-1"] = record()
    await harness.sender.expect(harness.records["r-1"])

    await harness.after(1)
    await harness.after(3600)

    assert len(receiver.requests) == 1, "a redirect is not followed"
    assert harness.counted == ["failed"]


async def test_a_delivery_is_given_up_after_the_most_attempts(tmp_path: Path) -> None:
    receiver = Receiver(500, 500, 500)
    harness = Harness(tmp_path, receiver, max_attempts=3, backoff_s=1.0)
    harness.records["r-1"] = record()
    await harness.sender.expect(harness.records["r-1"])

    for _ in range(10):
        await harness.after(10)

    assert len(receiver.requests) == 3
    assert harness.counted == ["retried", "retried", "failed"]


async def test_a_name_resolving_to_loopback_is_not_called_unless_its_address_is_listed(tmp_path: Path) -> None:
    receiver = Receiver(200)
    harness = Harness(tmp_path, receiver, allowed_hosts=frozenset({"localhost"}))
    harness.records["r-1"] = record(url="http://localhost:9/hook")
    await harness.sender.expect(harness.records["r-1"])

    await harness.after(1)

    assert receiver.requests == []
    assert harness.counted == ["failed"]


async def test_a_run_removed_before_it_ended_is_dropped_once_orphaned(tmp_path: Path) -> None:
    harness = Harness(tmp_path, Receiver())
    await harness.sender.expect(record())  # its record never written: the thread was busy, or it was rolled back

    await harness.after(60)
    assert harness.counted == []
    await harness.after(120)

    assert harness.counted == ["dropped"]


class SwallowingOutbox(SqliteOutbox):
    """Its ``claim`` swallows the first cancellation, as Python 3.11's ``wait_for`` (which redis-py and psycopg's
    pool go through) does when it lands as the command completes (ADR 33)."""

    swallowed = 0

    async def claim(self, now_ms: int, lease_ms: int, holder: str, limit: int) -> list[Delivery]:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if self.swallowed:
                raise
            self.swallowed += 1
        return []


async def test_the_loop_is_stopped_even_when_a_cancellation_is_swallowed_on_its_way(tmp_path: Path) -> None:
    outbox = SwallowingOutbox(tmp_path / "webhooks.sqlite")
    sender = WebhookSender(
        outbox, WebhookSettings(tick_s=0.01), load_run=Harness(tmp_path, Receiver()).load, clock=FakeClock()
    )
    sender.start()
    await asyncio.sleep(0.05)

    stopping = asyncio.create_task(sender.stop())
    stopped, _ = await asyncio.wait({stopping}, timeout=30)  # not a figure asserted: a bound on a hang

    assert stopped == {stopping}, "stop() waits on the loop, cancelled once, forever"
    assert outbox.swallowed == 1
    await outbox.close()
