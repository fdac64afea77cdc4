"""``POST /ai-sdk/chat`` and ``GET /ai-sdk/chat/{id}/stream`` in-process: what is refused before a run starts,
identity and ownership, the approver rule, the rate limit, and the reconnect's 204."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from api.auth.config import AuthConfig

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from api.settings import Settings

PASSWORD = "How do I reset my password?"
REFUND = "Please refund invoice INV-1001."
ALICE = {"Authorization": "Bearer alice-token-0123456789"}
BOB = {"Authorization": "Bearer bob-token-0123456789ab"}
CAROL = {"Authorization": "Bearer carol-token-0123456789"}


def user(text: str, message_id: str = "u1") -> dict[str, Any]:
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def answered(approval_id: str, approved: bool, **extra: Any) -> dict[str, Any]:
    """The assistant message the chat sends back once ``addToolApprovalResponse`` answered ``approval_id``."""
    tool = {
        "type": "tool-issue_refund",
        "toolCallId": approval_id.partition(":")[2],
        "state": "approval-responded",
        "input": {},
        "approval": {"id": approval_id, "approved": approved, **extra},
    }
    return {"id": approval_id.partition(":")[0], "role": "assistant", "parts": [{"type": "step-start"}, tool]}


def chunks(body: str) -> list[dict[str, Any]]:
    lines = [line[len("data: ") :] for line in body.split("\n") if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


def approval_of(body: str) -> str:
    (request,) = [chunk for chunk in chunks(body) if chunk["type"] == "tool-approval-request"]
    approval: str = request["approvalId"]
    return approval


async def test_a_turn_answers_a_ui_message_stream_of_a_run_the_rest_of_the_api_knows(client: AsyncTestClient) -> None:
    response = await client.post("/ai-sdk/chat", json={"id": "s_ai1", "messages": [user(PASSWORD)]})

    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    parts = chunks(response.text)
    run_id = response.headers["run-id"]
    assert parts[0]["messageId"] == run_id
    snapshot = (await client.get(f"/runs/{run_id}")).json()
    assert snapshot["session_id"] == "s_ai1"
    text = "".join(part["delta"] for part in parts if part["type"] == "text-delta")
    assert text == snapshot["response"]["answer"]["text"]
    assert (await client.get("/ai-sdk/chat/s_ai1/stream")).status_code == 204, "the run has ended"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"id": "s_ai2", "messages": []}, "$.messages"),
        ({"id": "not an id", "messages": [user(PASSWORD)]}, "$.id"),
        ({"id": "s_ai2", "messages": [user("   ")]}, "messages[0].parts"),
        ({"id": "s_ai2", "messages": [{"id": "a", "role": "assistant", "parts": []}]}, "messages[0]"),
        ({"id": "s_ai2", "messages": [{"id": "a", "role": "system", "parts": []}]}, "messages[0].role"),
        ({"id": "s_ai2", "messages": [answered("no-run-here", True)]}, "messages[0].parts[1].approval"),
        ({"id": "s_ai2", "messages": [answered("r_1:apv_1", "yes")]}, "messages[0].parts[1].approval"),  # type: ignore[arg-type]
        ({"id": "s_ai2", "messages": [user(PASSWORD)], "trigger": "resume-stream"}, "$.trigger"),
    ],
)
async def test_what_is_not_a_turn_is_a_422_naming_the_field(
    client: AsyncTestClient, body: dict[str, Any], field: str
) -> None:
    response = await client.post("/ai-sdk/chat", json=body)

    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "validation_failed"
    assert field in json.dumps(problem)


async def test_a_pause_ends_the_response_and_the_answered_approval_continues_the_run(client: AsyncTestClient) -> None:
    paused = await client.post("/ai-sdk/chat", json={"id": "s_ai3", "messages": [user(REFUND)]})
    approval = approval_of(paused.text)
    run_id = paused.headers["run-id"]
    assert chunks(paused.text)[-1]["finishReason"] == "tool-calls"

    busy = await client.post("/ai-sdk/chat", json={"id": "s_ai3", "messages": [user(PASSWORD)]})
    decided = await client.post(
        "/ai-sdk/chat", json={"id": "s_ai3", "messages": [user(REFUND), answered(approval, True)], "messageId": run_id}
    )
    again = await client.post("/ai-sdk/chat", json={"id": "s_ai3", "messages": [answered(approval, True)]})
    elsewhere = await client.post("/ai-sdk/chat", json={"id": "s_other", "messages": [answered(approval, True)]})

    assert (busy.status_code, busy.json()["code"]) == (409, "session_busy")
    assert decided.status_code == 200
    assert decided.headers["run-id"] == run_id
    assert chunks(decided.text)[0]["messageId"] == run_id
    assert (again.status_code, again.json()["code"]) == (409, "run_not_paused")
    assert elsewhere.status_code == 404, "the approval is of a run of another session"
    assert (await client.get(f"/runs/{run_id}")).json()["response"]["status"] == "completed"


async def test_the_reconnect_replays_a_paused_run_from_its_start(client: AsyncTestClient) -> None:
    paused = await client.post("/ai-sdk/chat", json={"id": "s_ai4", "messages": [user(REFUND)]})
    replay = await client.get("/ai-sdk/chat/s_ai4/stream")

    assert replay.status_code == 200
    assert replay.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert chunks(replay.text) == chunks(paused.text), "the same chunks: the log, not the connection, is the source"
    assert (await client.get("/ai-sdk/chat/s_never_used/stream")).status_code == 204


@pytest.fixture
def with_identity(settings: Settings, tmp_path: Path) -> Settings:
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": "alice-token-0123456789", "subject": "alice", "account_id": "ACC-2001"},
        {"token": "bob-token-0123456789ab", "subject": "bob", "account_id": "ACC-2002"},
        {"token": "carol-token-0123456789", "subject": "carol", "roles": ["approver"]},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    return msgspec.structs.replace(settings, auth=AuthConfig(tokens_file=tokens, approver_role="approver"))


@pytest.fixture
async def identity_client(with_identity: Settings) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(create_app(with_identity)) as test_client:
        yield test_client


async def test_a_session_of_another_subject_does_not_exist_and_only_an_approver_decides(
    identity_client: AsyncTestClient,
) -> None:
    client = identity_client
    anonymous = await client.post("/ai-sdk/chat", json={"id": "s_ai5", "messages": [user(REFUND)]})
    paused = await client.post("/ai-sdk/chat", json={"id": "s_ai5", "messages": [user(REFUND)]}, headers=ALICE)
    approval = approval_of(paused.text)
    decision = {"id": "s_ai5", "messages": [answered(approval, True)]}

    assert anonymous.status_code == 401
    assert (await client.get("/ai-sdk/chat/s_ai5/stream", headers=BOB)).status_code == 404
    assert (await client.post("/ai-sdk/chat", json=decision, headers=BOB)).status_code == 404
    owner = await client.post("/ai-sdk/chat", json=decision, headers=ALICE)
    assert (owner.status_code, owner.json()["code"]) == (403, "not_an_approver")
    assert (await client.get("/ai-sdk/chat/s_ai5/stream", headers=ALICE)).status_code == 200
    approver = await client.post("/ai-sdk/chat", json=decision, headers=CAROL)
    assert approver.status_code == 200
    run = (await client.get(f"/runs/{paused.headers['run-id']}", headers=ALICE)).json()
    assert run["decided_by"] == "carol"


async def test_a_chat_post_counts_as_a_turn_for_the_rate_limit(settings: Settings) -> None:
    limited = msgspec.structs.replace(settings, rate_limit_per_minute=1)
    async with AsyncTestClient(create_app(limited)) as client:
        first = await client.post("/ai-sdk/chat", json={"id": "s_ai6", "messages": [user(PASSWORD)]})
        second = await client.post("/ai-sdk/chat", json={"id": "s_ai6", "messages": [user(PASSWORD)]})
        reconnect = await client.get("/ai-sdk/chat/s_ai6/stream")

    assert first.status_code == 200
    assert second.status_code == 429
    assert "retry-after" in second.headers
    assert reconnect.status_code == 204, "a reconnect is not a turn"
