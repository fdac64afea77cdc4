"""``POST /runs/{run_id}/feedback``: a thumbs up or down on a finished run of the caller's, its comment redacted, one
a run; it goes with the session's erasure and with the retention purge. On both store kinds."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from api.auth import AuthConfig
from api.runs.retention import cutoff
from contracts import FEEDBACK_COMMENT_MAX, RunFeedback
from tests.support.store_bytes import stored_bytes

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable
    from pathlib import Path

    from api.runs.registry import RunRegistry
    from api.settings import Settings
    from tests.support.shared_stores import SharedStores

QUESTION = {"message": "How do I reset my password?"}
REFUND = {"message": "Please refund invoice INV-1001."}
MARKER = "wombat"
CARD = "4111 1111 1111 1111"
ALICE = {"Authorization": "Bearer alice-token-0123456789"}
BOB = {"Authorization": "Bearer bob-token-0123456789ab"}


async def on_app(client: AsyncTestClient, work: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """Run ``work`` on the app's own event loop (the in-process client serves it from another thread)."""
    return await asyncio.to_thread(client.blocking_portal.call, work, *args)


def registry(client: AsyncTestClient) -> RunRegistry:
    runs: RunRegistry = client.app.state.runs
    return runs


async def kept(client: AsyncTestClient) -> list[RunFeedback]:
    feedback: list[RunFeedback] = await on_app(client, registry(client).agent.stores.interactions.feedback)
    return feedback


async def chat(client: AsyncTestClient, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = await client.post("/chat", json=body, headers=headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_feedback_on_a_finished_run_is_kept_redacted_and_the_latest_replaces_the_first(
    client: AsyncTestClient,
) -> None:
    answered = await chat(client, QUESTION)
    run_id = answered["run_id"]

    first = await client.post(f"/runs/{run_id}/feedback", json={"score": 0, "comment": f"  card {CARD} {MARKER} "})
    second = await client.post(f"/runs/{run_id}/feedback", json={"score": 1})

    assert first.status_code == 201, first.text
    body = first.json()
    assert (body["run_id"], body["session_id"], body["score"]) == (run_id, answered["session_id"], 0)
    assert MARKER in body["comment"]
    assert "1111" not in body["comment"], "the card number is redacted"
    assert second.status_code == 201, second.text
    assert (second.json()["score"], second.json()["comment"]) == (1, None)
    assert [(f.run_id, f.score, f.comment) for f in await kept(client)] == [(run_id, 1, None)]


async def test_feedback_is_refused_for_a_run_not_finished_unknown_or_malformed(client: AsyncTestClient) -> None:
    paused = await chat(client, REFUND)
    answered = await chat(client, QUESTION)

    waiting = await client.post(f"/runs/{paused['run_id']}/feedback", json={"score": 1})
    unknown = await client.post("/runs/r_nobody/feedback", json={"score": 1})
    bad_score = await client.post(f"/runs/{answered['run_id']}/feedback", json={"score": 2})
    long_note = await client.post(
        f"/runs/{answered['run_id']}/feedback", json={"score": 1, "comment": "x" * (FEEDBACK_COMMENT_MAX + 1)}
    )
    unknown_field = await client.post(f"/runs/{answered['run_id']}/feedback", json={"score": 1, "stars": 5})

    assert (waiting.status_code, waiting.json()["code"]) == (409, "run_not_finished")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "run_not_found")
    for refused in (bad_score, long_note, unknown_field):
        assert refused.status_code == 422, refused.text
    assert await kept(client) == []


async def test_feedback_goes_with_the_erased_session(
    client: AsyncTestClient, settings: Settings, stores: SharedStores | None
) -> None:
    answered = await chat(client, QUESTION)
    other = await chat(client, QUESTION)
    for run in (answered, other):
        given = await client.post(f"/runs/{run['run_id']}/feedback", json={"score": 1, "comment": MARKER})
        assert given.status_code == 201, given.text

    assert (await client.delete(f"/sessions/{answered['session_id']}")).status_code == 204

    assert [f.run_id for f in await kept(client)] == [other["run_id"]]
    gone = await client.post(f"/runs/{answered['run_id']}/feedback", json={"score": 1})
    assert gone.status_code == 404
    for where, data in stored_bytes(settings.agent.data_dir, stores).items():
        assert answered["session_id"].encode() not in data, where


async def test_feedback_goes_with_its_run_in_the_retention_purge(settings: Settings) -> None:
    async with AsyncTestClient(create_app(settings)) as client:
        answered = await chat(client, QUESTION)
        given = await client.post(f"/runs/{answered['run_id']}/feedback", json={"score": 0})
        assert given.status_code == 201, given.text
        runs = registry(client)
        before = cutoff(runs.clock.now_ns() + 10**9, 0)

        forgotten = await on_app(client, runs.eraser.purge, before, 10)

        assert forgotten.runs == 1
        assert await kept(client) == []


@pytest.fixture
async def identity_client(settings: Settings, tmp_path: Path) -> AsyncIterator[AsyncTestClient]:
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
    with_identity = msgspec.structs.replace(settings, auth=AuthConfig(tokens_file=tokens))
    async with AsyncTestClient(create_app(with_identity)) as test_client:
        yield test_client


async def test_only_the_runs_owner_gives_feedback(identity_client: AsyncTestClient) -> None:
    client = identity_client
    answered = await chat(client, QUESTION, **ALICE)
    path = f"/runs/{answered['run_id']}/feedback"

    by_bob = await client.post(path, json={"score": 0}, headers=BOB)
    anonymous = await client.post(path, json={"score": 0})
    by_alice = await client.post(path, json={"score": 1}, headers=ALICE)

    assert (by_bob.status_code, by_bob.json()["code"]) == (404, "run_not_found")
    assert anonymous.status_code == 401
    assert by_alice.status_code == 201, by_alice.text
    assert [(f.run_id, f.score) for f in await kept(client)] == [(answered["run_id"], 1)]
