"""Identity over real HTTP: bearer tokens, runs owned by their subject, the approval policy, quotas.

A real uvicorn on loopback, on the embedded and on the shared stores, with a tokens file of three subjects:
alice and bob (users, each with an account) and carol (an approver).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any

import httpx
import jwt
import msgspec
import pytest

from api.auth import AuthConfig
from tests.support.harness_process import serve_once
from tests.support.sse import frames
from tests.support.store_bytes import stored_bytes

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.shared_stores import SharedStores

ALICE, BOB, CAROL = "alice-token-0123456789abcdef", "bob-token-0123456789abcdef", "carol-token-0123456789abcdef"
SUBJECTS = [
    {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
    {"token": BOB, "subject": "bob", "roles": ["user"], "account_id": "ACC-2002"},
    {"token": CAROL, "subject": "carol", "roles": ["approver"]},
]
SSE = {"Accept": "text/event-stream"}
PASSWORD = {"message": "How do I reset my password?"}
REFUND = {"message": "Please refund invoice INV-1001."}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def with_identity(settings: Settings, tmp_path: Path, **auth: Any) -> Settings:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": SUBJECTS}))
    return msgspec.structs.replace(settings, auth=AuthConfig(tokens_file=tokens, **auth))


@pytest.fixture
def service(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The service with identity on and the approver role set."""
    return serve(with_identity(settings, tmp_path, approver_role="approver"))


def problem(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/problem+json"), response.text
    body: dict[str, Any] = response.json()
    return body


async def paused_refund(client: httpx.AsyncClient, token: str) -> dict[str, Any]:
    paused: dict[str, Any] = (await client.post("/chat", json=REFUND, headers=bearer(token))).json()
    assert paused["status"] == "paused", paused
    return paused


def decision(paused: dict[str, Any], verdict: str = "approve") -> dict[str, Any]:
    return {
        "run_id": paused["run_id"],
        "approval_id": paused["pending_approval"]["approval_id"],
        "decision": verdict,
    }


async def test_every_route_but_the_public_ones_needs_a_token(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        missing = await client.post("/chat", json=PASSWORD)
        unknown = await client.get("/approvals", headers=bearer("no-such-token-0123456789"))
        malformed = await client.get("/runs/r_x", headers={"Authorization": "Basic YWxpY2U6cHc="})
        public = [await client.get(path) for path in ("/healthz", "/", "/spa/app.js", "/schema/openapi.json")]
        document = public[-1].json()

    assert (missing.status_code, problem(missing)["code"]) == (401, "token_missing")
    assert missing.headers["www-authenticate"] == 'Bearer realm="agent-harness"'
    assert (unknown.status_code, problem(unknown)["code"]) == (401, "token_unknown")
    assert unknown.headers["www-authenticate"].startswith('Bearer realm="agent-harness", error="invalid_token"')
    assert (malformed.status_code, problem(malformed)["code"]) == (401, "token_malformed")
    assert [response.status_code for response in public] == [200, 200, 200, 200]
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert document["paths"]["/chat"]["post"]["security"] == [{"bearer": []}]


async def test_a_run_does_not_exist_for_another_subject(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        mine = (await client.post("/chat", json=PASSWORD, headers=bearer(ALICE))).json()
        run, session = mine["run_id"], mine["session_id"]
        as_alice = await client.get(f"/runs/{run}", headers=bearer(ALICE))
        attempts = {
            "read": await client.get(f"/runs/{run}", headers=bearer(BOB)),
            "events": await client.get(f"/runs/{run}/events", headers=bearer(BOB)),
            "cancel": await client.post(f"/runs/{run}/cancel", headers=bearer(BOB)),
            "resume": await client.post(
                "/chat/resume", json={"run_id": run, "approval_id": "apv_x", "decision": "approve"}, headers=bearer(BOB)
            ),
        }
        foreign_session = await client.post("/chat", json={**PASSWORD, "session_id": session}, headers=bearer(BOB))
        own_session = await client.post("/chat", json={**PASSWORD, "session_id": session}, headers=bearer(ALICE))

    assert as_alice.json()["status"] == "completed"
    for attempt, response in attempts.items():
        assert (response.status_code, problem(response)["code"]) == (404, "run_not_found"), attempt
    assert (foreign_session.status_code, problem(foreign_session)["code"]) == (404, "session_not_found")
    assert own_session.json()["status"] == "completed"


async def test_only_an_approver_decides_and_the_decision_names_them(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        paused = await paused_refund(client, ALICE)
        owner_decides = await client.post("/chat/resume", json=decision(paused), headers=bearer(ALICE))
        inboxes = {
            name: (await client.get("/approvals", headers=bearer(token))).json()["approvals"]
            for name, token in (("alice", ALICE), ("bob", BOB), ("carol", CAROL))
        }
        approver_reads = await client.get(f"/runs/{paused['run_id']}", headers=bearer(CAROL))
        bob_follows = await client.get(f"/runs/{paused['run_id']}/events?after=1", headers=bearer(BOB))
        async with client.stream("POST", "/chat/resume", json=decision(paused), headers=SSE | bearer(CAROL)) as sse:
            resumed = [frame async for frame in frames(sse) if frame.event]
        again = {
            name: await client.post("/chat/resume", json=decision(paused), headers=bearer(token))
            for name, token in (("owner", ALICE), ("approver", CAROL))
        }
        snapshot = (await client.get(f"/runs/{paused['run_id']}", headers=bearer(ALICE))).json()
        still_readable_by_carol = await client.get(f"/runs/{paused['run_id']}", headers=bearer(CAROL))

    assert (owner_decides.status_code, problem(owner_decides)["code"]) == (403, "not_an_approver")
    assert inboxes["alice"] == []
    assert inboxes["bob"] == []
    [request] = inboxes["carol"]
    assert request["run_id"] == paused["run_id"]
    assert request["approval_id"] == paused["pending_approval"]["approval_id"]
    assert (request["action"], request["requested_by"]) == ("issue_refund", "alice")
    assert request["summary"] == "Refund invoice INV-1001 ($42.00)"
    assert approver_reads.json()["status"] == "waiting"
    assert bob_follows.status_code == 404, "bob is neither the owner nor an approver"
    final = resumed[-1].data
    assert final["type"] == "turn_completed"
    assert final["data"]["response"]["decided_by"] == "carol"
    assert final["data"]["response"]["status"] == "completed"
    for who, response in again.items():
        assert (response.status_code, problem(response)["code"]) == (409, "run_not_paused"), who
    assert snapshot["decided_by"] == "carol"
    assert snapshot["response"]["decided_by"] == "carol"
    assert still_readable_by_carol.status_code == 200, "an approver reads the runs it decided"


async def test_without_an_approver_role_the_owner_decides_their_own(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    service = serve(with_identity(settings, tmp_path))
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        paused = await paused_refund(client, ALICE)
        inbox_alice = (await client.get("/approvals", headers=bearer(ALICE))).json()["approvals"]
        inbox_carol = (await client.get("/approvals", headers=bearer(CAROL))).json()["approvals"]
        carol = await client.post("/chat/resume", json=decision(paused, "reject"), headers=bearer(CAROL))
        alice = await client.post("/chat/resume", json=decision(paused, "reject"), headers=bearer(ALICE))

    assert [request["run_id"] for request in inbox_alice] == [paused["run_id"]]
    assert inbox_carol == []
    assert (carol.status_code, problem(carol)["code"]) == (404, "run_not_found")
    assert alice.json()["status"] == "rejected"
    assert alice.json()["decided_by"] == "alice"


async def test_my_account_is_the_subjects_account(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        delete_mine = (await client.post("/chat", json={"message": "Delete my account."}, headers=bearer(BOB))).json()
        others_invoice = (
            await client.post("/chat", json={"message": "Please refund invoice INV-1003."}, headers=bearer(ALICE))
        ).json()
        no_account = (await client.post("/chat", json={"message": "Delete my account."}, headers=bearer(CAROL))).json()

    assert delete_mine["status"] == "paused"
    assert delete_mine["pending_approval"]["action"] == "delete_account"
    assert delete_mine["pending_approval"]["summary"] == "Delete account ACC-2002 (irreversible)"
    assert others_invoice["status"] == "completed"
    assert (others_invoice["answer"]["kind"], others_invoice["answer"]["reason"]) == (
        "action_not_possible",
        "wrong_account",
    )
    assert others_invoice["pending_approval"] is None
    assert (no_account["answer"]["kind"], no_account["answer"]["reason"]) == ("action_not_possible", "wrong_account")
    assert no_account["answer"]["text"].startswith("Your sign-in is linked to no account")
    assert no_account["pending_approval"] is None


async def test_turns_are_rate_limited_per_subject(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    service = serve(msgspec.structs.replace(with_identity(settings, tmp_path), rate_limit_per_minute=2))
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        alice = [(await client.post("/chat", json=PASSWORD, headers=bearer(ALICE))).status_code for _ in range(3)]
        bob = (await client.post("/chat", json=PASSWORD, headers=bearer(BOB))).status_code
        limited = await client.post("/chat", json=PASSWORD, headers=bearer(ALICE))

    assert alice == [200, 200, 429]
    assert bob == 200, "another subject has limits of its own"
    assert int(limited.headers["retry-after"]) > 0


async def reopen_after_close(client: httpx.AsyncClient, url: str, *, headers: dict[str, str]) -> httpx.Response:
    """The answer to opening ``url`` again, tried for up to 2 s: far less than a slot's expiry (3 leases), so only
    the slot given back when the server saw the stream end can let it in."""
    async with asyncio.timeout(2):
        while True:
            async with client.stream("GET", url, headers=headers) as response:
                if response.status_code != 429:
                    return response
            await asyncio.sleep(0.02)


async def test_open_streams_are_limited_per_subject(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    service = serve(with_identity(settings, tmp_path, streams_per_subject=1))
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        paused = await paused_refund(client, ALICE)
        events = f"/runs/{paused['run_id']}/events"
        async with client.stream("GET", events, headers=bearer(ALICE)) as first:
            stream = frames(first)
            async for frame in stream:
                if frame.event == "paused":
                    break
            second = await client.get(events, headers=bearer(ALICE))
            streamed_turn = await client.post("/chat", json=PASSWORD, headers=SSE | bearer(ALICE))
            json_turn = await client.post("/chat", json=PASSWORD, headers=bearer(ALICE))
            async with client.stream("POST", "/chat", json=PASSWORD, headers=SSE | bearer(BOB)) as bobs:
                other_subject = [frame.event async for frame in frames(bobs) if frame.event]
        # the server learns of the close on a connection of its own, which it may read after this request's
        reopened = await reopen_after_close(client, events, headers=bearer(ALICE))

    assert (second.status_code, problem(second)["code"]) == (429, "too_many_streams")
    assert int(second.headers["retry-after"]) > 0
    assert (streamed_turn.status_code, problem(streamed_turn)["code"]) == (429, "too_many_streams")
    assert json_turn.status_code == 200, "a JSON turn holds no stream"
    assert other_subject[-1] == "turn_completed", "another subject has a quota of its own"
    assert reopened.status_code == 200, "the slot is given back when the stream ends"


async def test_planted_tokens_appear_in_no_event_record_or_log(
    service: LiveServer, tmp_path: Path, stores: SharedStores | None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO")
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        paused = await paused_refund(client, ALICE)
        async with client.stream("POST", "/chat", json=PASSWORD, headers=SSE | bearer(BOB)) as streamed:
            events = b"".join([chunk async for chunk in streamed.aiter_raw()])
        await client.post("/chat/resume", json=decision(paused), headers=bearer(CAROL))
        replay = (await client.get(f"/runs/{paused['run_id']}/events", headers=bearer(ALICE))).content
        await client.get("/approvals", headers=bearer("not-a-token-but-planted-0123456789"))

    stores_now = stored_bytes(tmp_path / "data", stores)
    logs = caplog.text.encode()
    for token in (ALICE, BOB, CAROL):
        assert token.encode() not in events + replay
        assert token.encode() not in logs
        for where, content in stores_now.items():
            assert token.encode() not in content, where
    assert b"not-a-token-but-planted" not in logs


def agui_input(thread: str, message: str | None = None, **extra: Any) -> dict[str, Any]:
    messages = [] if message is None else [{"id": "m1", "role": "user", "content": message}]
    return {"threadId": thread, "runId": f"{thread}-run", "messages": messages, **extra}


async def test_ag_ui_follows_the_same_rules(service: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        anonymous = await client.post("/ag-ui", json=agui_input("s_agui_alice", PASSWORD["message"]))
        async with client.stream(
            "POST", "/ag-ui", json=agui_input("s_agui_alice", REFUND["message"]), headers=bearer(ALICE)
        ) as paused:
            body = (await paused.aread()).decode()
        finished = json.loads([line for line in body.splitlines() if line.startswith("data: ")][-1][len("data: ") :])
        [interrupt] = finished["outcome"]["interrupts"]
        resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"decision": "approve"}}]
        bob_turn = await client.post(
            "/ag-ui", json=agui_input("s_agui_alice", PASSWORD["message"]), headers=bearer(BOB)
        )
        bob_resume = await client.post("/ag-ui", json=agui_input("s_agui_alice", resume=resume), headers=bearer(BOB))
        alice_resume = await client.post(
            "/ag-ui", json=agui_input("s_agui_alice", resume=resume), headers=bearer(ALICE)
        )

    assert (anonymous.status_code, problem(anonymous)["code"]) == (401, "token_missing")
    assert finished["type"] == "RUN_FINISHED"
    assert (bob_turn.status_code, problem(bob_turn)["code"]) == (404, "session_not_found")
    assert bob_resume.status_code == 404, "another subject's thread does not exist for bob"
    assert (alice_resume.status_code, problem(alice_resume)["code"]) == (403, "not_an_approver")


JWT_SECRET = "a-shared-secret-of-at-least-32-bytes!"


def signed(**claims: Any) -> str:
    return jwt.encode(
        {"sub": "dave", "roles": ["user"], "aud": "agent-harness", "exp": int(time.time()) + 300, **claims},
        JWT_SECRET,
        algorithm="HS256",
    )


async def test_signed_tokens_over_http(serve: Callable[..., LiveServer], settings: Settings) -> None:
    auth = AuthConfig(jwt_secret=JWT_SECRET, jwt_audience="agent-harness")
    service = serve(msgspec.structs.replace(settings, auth=auth))
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        valid = await client.post("/chat", json=PASSWORD, headers=bearer(signed()))
        others = await client.get(f"/runs/{valid.json()['run_id']}", headers=bearer(signed(sub="erin")))
        async with client.stream("POST", "/chat", json=PASSWORD, headers=SSE | bearer(signed())) as streamed:
            last = [frame async for frame in frames(streamed) if frame.event][-1]
        rejected = {
            reason: await client.post("/chat", json=PASSWORD, headers=bearer(token))
            for reason, token in (
                ("token_expired", signed(exp=int(time.time()) - 3600)),
                ("token_audience_invalid", signed(aud="someone-else")),
                ("token_signature_invalid", jwt.encode({"sub": "dave"}, "another-secret-of-32-bytes-or-more!")),
                ("token_subject_missing", signed(sub="")),
                ("token_malformed", "this.is.garbage"),
            )
        }

    assert valid.json()["status"] == "completed"
    assert others.status_code == 404, "another subject of the same issuer"
    assert last.event == "turn_completed"
    for reason, response in rejected.items():
        assert (response.status_code, problem(response)["code"]) == (401, reason)
        assert response.headers["www-authenticate"].startswith('Bearer realm="agent-harness", error="invalid_token"')


async def test_sessions_from_before_identity_belong_to_the_legacy_subject(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    before = serve(settings)
    async with httpx.AsyncClient(base_url=before.url, timeout=30) as client:
        old = (await client.post("/chat", json=PASSWORD)).json()
    before.__exit__()

    after = serve(with_identity(settings, tmp_path, legacy_subject="alice"))
    async with httpx.AsyncClient(base_url=after.url, timeout=30) as client:
        alice_reads = await client.get(f"/runs/{old['run_id']}", headers=bearer(ALICE))
        alice_continues = await client.post(
            "/chat", json={**PASSWORD, "session_id": old["session_id"]}, headers=bearer(ALICE)
        )
        bob_reads = await client.get(f"/runs/{old['run_id']}", headers=bearer(BOB))
        bob_continues = await client.post(
            "/chat", json={**PASSWORD, "session_id": old["session_id"]}, headers=bearer(BOB)
        )

    assert alice_reads.status_code == 200
    assert alice_continues.json()["status"] == "completed"
    assert bob_reads.status_code == 404
    assert (bob_continues.status_code, problem(bob_continues)["code"]) == (404, "session_not_found")


@pytest.mark.parametrize(
    ("content", "complaint"),
    [(None, "cannot be read"), ('{"tokens": [{"subject": "alice"}]}', "needs exactly one of")],
    ids=["missing", "malformed"],
)
def test_a_bad_tokens_file_stops_the_service_with_one_line(tmp_path: Path, content: str | None, complaint: str) -> None:
    tokens = tmp_path / "tokens.json"
    if content is not None:
        tokens.write_text(content)

    finished = serve_once({"HARNESS_DATA_DIR": str(tmp_path / "data"), "HARNESS_AUTH_TOKENS_FILE": str(tokens)})

    assert finished.returncode == 2
    [line] = finished.stderr.strip().splitlines()
    assert line.startswith(f"harness: HARNESS_AUTH_TOKENS_FILE ({tokens})")
    assert complaint in line
