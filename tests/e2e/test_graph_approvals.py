"""The approvals inbox lists a registered graph's interrupts beside the support agent's approvals, and an approver
who does not own the run decides one through the Agent Protocol (``POST /threads/{id}/runs`` with
``command.resume``), as the SPA's inbox does. A real uvicorn serving examples/langgraph.json, identity on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from tests.e2e.agent_protocol.turns import EXAMPLES, REFUND_APPROVAL
from tests.e2e.test_identity import ALICE, CAROL, bearer, paused_refund, problem, with_identity
from tests.support.graph_projects import isolated_loading
from tests.support.sse import collect, frames

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

ORDER_REFUND = {"messages": [{"role": "user", "content": "Please refund order A-1001."}]}
CHAT_KEYS = {"run_id", "session_id", "approval_id", "action", "summary", "requested_by", "requested_at"}


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The examples imported afresh, with their scripted fake chat model."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES)


@pytest.fixture
def service(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The examples beside the support agent, identity on, carol the only approver."""
    guarded = with_identity(settings, tmp_path, approver_role="approver")
    return serve(msgspec.structs.replace(guarded, graphs_config=EXAMPLES / "langgraph.json"))


async def interrupted_refund(client: httpx.AsyncClient, token: str) -> tuple[str, str]:
    """Alice's ReAct agent stopped at ``issue_refund``'s interrupt: its thread and run."""
    thread = (await client.post("/threads", json={}, headers=bearer(token))).json()
    waited = await client.post(
        f"/threads/{thread['thread_id']}/runs/wait",
        json={"assistant_id": "react_agent", "input": ORDER_REFUND},
        headers=bearer(token),
    )
    assert waited.status_code == 200, waited.text
    runs = (await client.get(f"/threads/{thread['thread_id']}/runs", headers=bearer(token))).json()
    [run] = runs
    assert run["status"] == "interrupted", run
    return thread["thread_id"], run["run_id"]


async def test_an_approver_decides_another_subjects_graph_interrupt_from_the_inbox(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        chat = await paused_refund(client, ALICE)
        thread_id, run_id = await interrupted_refund(client, ALICE)
        inbox = (await client.get("/approvals", headers=bearer(CAROL))).json()["approvals"]
        owners_inbox = (await client.get("/approvals", headers=bearer(ALICE))).json()["approvals"]
        [listed] = [request for request in inbox if request["run_id"] == run_id]
        through_chat = await client.post(
            "/chat/resume",
            json={"run_id": run_id, "approval_id": listed["approval_id"], "decision": "approve"},
            headers=bearer(CAROL),
        )
        resumed = await client.post(
            f"/threads/{thread_id}/runs",
            json={"assistant_id": listed["assistant_id"], "command": {"resume": {"decision": "approve"}}},
            headers=bearer(CAROL),
        )
        async with client.stream("GET", f"/runs/{run_id}/events", headers=bearer(CAROL)) as sse:
            events = await collect(frames(sse))
        snapshot = (await client.get(f"/runs/{run_id}", headers=bearer(CAROL))).json()
        state = (await client.get(f"/threads/{thread_id}/state", headers=bearer(ALICE))).json()
        again = await client.post(
            f"/threads/{thread_id}/runs",
            json={"assistant_id": listed["assistant_id"], "command": {"resume": {"decision": "approve"}}},
            headers=bearer(CAROL),
        )
        inbox_after = (await client.get("/approvals", headers=bearer(CAROL))).json()["approvals"]

    assert owners_inbox == [], "with an approver role, the owner decides nothing"
    [chat_request] = [request for request in inbox if request["run_id"] == chat["run_id"]]
    assert set(chat_request) == CHAT_KEYS, "a /chat approval's JSON is unchanged: no graph_id, no assistant_id"
    assert listed["session_id"] == thread_id
    assert (listed["graph_id"], listed["action"], listed["summary"]) == (
        "react_agent",
        REFUND_APPROVAL["action"],
        REFUND_APPROVAL["summary"],
    )
    assert listed["requested_by"] == "alice"
    assert isinstance(listed["assistant_id"], str)
    assert listed["assistant_id"]
    assert (through_chat.status_code, problem(through_chat)["code"]) == (422, "run_request_invalid")
    assert resumed.status_code == 200, resumed.text
    assert resumed.json()["run_id"] == run_id, "the resume continues the same run"
    assert events[-1].event == "run_completed", [frame.event for frame in events]
    assert (snapshot["status"], snapshot["decided_by"]) == ("completed", "carol")
    assert "refund" in str(state["values"]["messages"][-1]["content"]).lower()
    assert again.status_code in {404, 409}, "decided once: the thread has nothing waiting any more"
    assert [request["run_id"] for request in inbox_after] == [chat["run_id"]]


async def test_approvals_of_chat_turns_carry_no_graph(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        chat = await paused_refund(client, ALICE)
        raw = (await client.get("/approvals", headers=bearer(CAROL))).content

    body: dict[str, Any] = msgspec.json.decode(raw)
    [request] = body["approvals"]
    assert request["run_id"] == chat["run_id"]
    assert b"graph_id" not in raw
    assert b"assistant_id" not in raw
    assert list(request) == [
        "run_id",
        "session_id",
        "approval_id",
        "action",
        "summary",
        "requested_by",
        "requested_at",
    ]
