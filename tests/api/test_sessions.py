"""``DELETE /sessions/{session_id}``: a session erased is gone from every route and every store, on both store
kinds; its paused run is cancelled first; ids shaped like personal data are refused and never repeated."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from agent.turns import thread_config
from api.app import create_app
from api.auth import AuthConfig
from tests.support.decisions import decision_for
from tests.support.store_bytes import stored_bytes

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from api.runs.registry import RunRegistry
    from api.settings import Settings
    from tests.support.shared_stores import SharedStores

MARKER = "quokka"
QUESTION = {"message": f"How do I reset my password? {MARKER}"}
REFUND = {"message": f"Please refund invoice INV-1001. {MARKER}"}
PERSONAL_IDS = [
    "4111111111111111",
    "4111-1111-1111-1111",
    "123-45-6789",
    "DE89370400440532013000",
    "sk-proj-abcdefghijklmnop0123",
]


def registry(client: AsyncTestClient) -> RunRegistry:
    runs: RunRegistry = client.app.state.runs
    return runs


async def chat(client: AsyncTestClient, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = await client.post("/chat", json=body, headers=headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_an_erased_session_is_gone_from_every_route_and_store(
    client: AsyncTestClient, settings: Settings, stores: SharedStores | None
) -> None:
    answered = await chat(client, QUESTION)
    session = answered["session_id"]
    paused = await chat(client, {**REFUND, "session_id": session})
    kept = await chat(client, QUESTION)  # another session: untouched
    assert MARKER in b"".join(stored_bytes(settings.agent.data_dir, stores).values()).decode("utf-8", "replace")

    deleted = await client.delete(f"/sessions/{session}")

    assert (deleted.status_code, deleted.content) == (204, b"")
    for run_id in (answered["run_id"], paused["run_id"]):
        assert (await client.get(f"/runs/{run_id}")).status_code == 404
        assert (await client.get(f"/runs/{run_id}/events")).status_code == 404
    assert (await client.post("/chat/resume", json=decision_for(paused, "approve"))).status_code == 404
    assert (await client.delete(f"/sessions/{session}")).status_code == 404
    assert (await client.get(f"/runs/{kept['run_id']}")).json()["status"] == "completed"
    state = await registry(client).agent.graph.aget_state(thread_config(session))
    assert state.values == {}, "the session's checkpoints are gone"
    for where, data in stored_bytes(settings.agent.data_dir, stores).items():
        assert session.encode() not in data, where
    fresh = await chat(client, {**QUESTION, "session_id": session})
    assert fresh["status"] == "completed", "the id may start a new, empty session"


@pytest.mark.parametrize("session_id", PERSONAL_IDS)
async def test_a_session_id_shaped_like_personal_data_is_refused_and_never_repeated(
    client: AsyncTestClient, session_id: str
) -> None:
    deleted = await client.delete(f"/sessions/{session_id}")
    started = await client.post("/chat", json={**QUESTION, "session_id": session_id})

    for response in (deleted, started):
        assert response.status_code == 422
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "session_id_refused"
        assert session_id.encode() not in response.content
        assert "4111" not in response.text


async def test_a_session_nobody_started_does_not_exist(client: AsyncTestClient) -> None:
    response = await client.delete("/sessions/s_never")
    malformed = await client.delete("/sessions/-not-an-id")

    assert (response.status_code, response.json()["code"]) == (404, "session_not_found")
    assert (malformed.status_code, malformed.json()["code"]) == (422, "validation_failed")


@pytest.fixture
def with_identity(settings: Settings, tmp_path: Path) -> Settings:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(
        json.dumps(
            {
                "tokens": [
                    {"token": "alice-token-0123456789", "subject": "alice", "account_id": "ACC-2001"},
                    {"token": "bob-token-0123456789ab", "subject": "bob", "account_id": "ACC-2002"},
                ]
            }
        )
    )
    return msgspec.structs.replace(settings, auth=AuthConfig(tokens_file=tokens))


@pytest.fixture
async def identity_client(with_identity: Settings) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(create_app(with_identity)) as test_client:
        yield test_client


ALICE = {"Authorization": "Bearer alice-token-0123456789"}
BOB = {"Authorization": "Bearer bob-token-0123456789ab"}


async def test_only_the_owner_erases_a_session_and_to_anyone_else_it_does_not_exist(
    identity_client: AsyncTestClient,
) -> None:
    client = identity_client
    answered = await chat(client, QUESTION, **ALICE)
    session = answered["session_id"]

    by_bob = await client.delete(f"/sessions/{session}", headers=BOB)
    read_by_bob = await client.get(f"/runs/{answered['run_id']}", headers=BOB)
    anonymous = await client.delete(f"/sessions/{session}")

    assert (by_bob.status_code, by_bob.json()["code"]) == (404, "session_not_found")
    assert read_by_bob.status_code == 404
    assert anonymous.status_code == 401
    assert (await client.get(f"/runs/{answered['run_id']}", headers=ALICE)).status_code == 200
    assert (await client.delete(f"/sessions/{session}", headers=ALICE)).status_code == 204
    assert (await client.get(f"/runs/{answered['run_id']}", headers=ALICE)).status_code == 404


async def gone(client: AsyncTestClient, run_id: str, headers: dict[str, str]) -> bool:
    """Whether the run is erased, once the erasure that follows its turn is done (waited for on the app's own
    event loop, never by the clock)."""
    await asyncio.to_thread(client.blocking_portal.call, registry(client).idle)
    return (await client.get(f"/runs/{run_id}", headers=headers)).status_code == 404


async def test_a_deleted_account_takes_its_sessions_with_it(identity_client: AsyncTestClient) -> None:
    client = identity_client
    earlier = await chat(client, QUESTION, **ALICE)
    bobs = await chat(client, QUESTION, **BOB)
    for headers in (ALICE, BOB):
        item = {"namespace": ["memories"], "key": "tone", "value": {"likes": "short answers"}}
        assert (await client.put("/store/items", json=item, headers=headers)).status_code == 204
    paused = await chat(client, {"message": "Please delete account ACC-2001."}, **ALICE)
    assert paused["pending_approval"]["action"] == "delete_account"

    deleted = await client.post("/chat/resume", json=decision_for(paused, "approve"), headers=ALICE)

    assert deleted.status_code == 200
    assert deleted.json()["answer"]["kind"] == "action_result"
    assert await gone(client, earlier["run_id"], ALICE), "an earlier session of the account"
    assert await gone(client, paused["run_id"], ALICE), "the session that deleted it"
    assert (await client.get(f"/runs/{bobs['run_id']}", headers=BOB)).status_code == 200, "another account's"
    stored = {"namespace": "memories", "key": "tone"}
    assert (await client.get("/store/items", params=stored, headers=ALICE)).status_code == 404, "the account's memory"
    assert (await client.get("/store/items", params=stored, headers=BOB)).status_code == 200, "another account's"


async def test_a_rejected_deletion_erases_nothing(identity_client: AsyncTestClient) -> None:
    client = identity_client
    paused = await chat(client, {"message": "Please delete account ACC-2001."}, **ALICE)

    rejected = await client.post("/chat/resume", json=decision_for(paused, "reject"), headers=ALICE)

    assert rejected.json()["status"] == "rejected"
    assert not await gone(client, paused["run_id"], ALICE)
