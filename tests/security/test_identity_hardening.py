"""Issue 24, findings 1, 2 and 7: identity, over real HTTP (uvicorn, and `harness serve` processes).

1. A subject bound to no account gets no refund or deletion proposed, for any account's records.
2. JWTs must expire; JWT settings that would take another application's tokens, a guessable secret or keys
   fetched over plain http stop the service at start; a key of the wrong type is a 401; a JWKS endpoint
   that hangs holds no worker thread and gets one fetch, however many tokens name unknown keys.
7. A token taken out of the tokens file is refused from its next request, and its open streams close
   without a terminal event (the run goes on), on one instance and on each of two sharing Redis and
   PostgreSQL; the same for a JWT whose `exp` passes during a stream.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

import httpx
import jwt
import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from agent.config import StubConfig
from api.auth import AuthConfig
from contracts import TERMINAL_EVENT_TYPES
from tests.support.harness_process import HarnessProcess, serve_once
from tests.support.jwks_server import JwksServer, jwks_server, signed_with
from tests.support.shared_stores import fresh_shared_stores
from tests.support.sse import Frame, frames, parse_frame

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

SUBJECTS: dict[str, dict[str, Any]] = {
    "alice": {"token": "alice-token-0123456789abcdef", "roles": ["user"], "account_id": "ACC-2001"},
    "bob": {"token": "bob-token-0123456789abcdef", "roles": ["user"], "account_id": "ACC-2002"},
    "carol": {"token": "carol-token-0123456789abcdef", "roles": ["approver"]},
    "erin": {"token": "erin-token-0123456789abcdef", "roles": ["user"]},
}
"""alice and bob have accounts, carol approves, erin signs in but is bound to no account."""
ALICE, BOB, CAROL, ERIN = (SUBJECTS[name]["token"] for name in ("alice", "bob", "carol", "erin"))
JWT_SECRET = "a-shared-secret-of-at-least-32-bytes!"
AUDIENCE = "agent-harness"
SSE = {"Accept": "text/event-stream"}
PASSWORD = {"message": "How do I reset my password?"}
REFUND = {"message": "Please refund invoice INV-1001."}
"""An invoice of alice's account."""
BOBS_REFUND = {"message": "Please refund invoice INV-1003."}
CLOSE_WITHIN_S = 30
"""How long a test waits for what the contract promises within 10 s (a loaded machine is slower)."""


@pytest.fixture
def stores() -> None:
    """One embedded instance here; the test on shared stores starts its own instances."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def write_tokens(path: Path, *names: str) -> Path:
    """The tokens file naming ``names``, replaced the way an operator should: a new file renamed over it."""
    fresh = path.with_suffix(".new")
    fresh.write_text(json.dumps({"tokens": [{"subject": name, **SUBJECTS[name]} for name in names]}))
    os.replace(fresh, path)
    return path


def with_auth(settings: Settings, **auth: Any) -> Settings:
    return msgspec.structs.replace(settings, auth=AuthConfig(**auth))


def signed(**claims: Any) -> str:
    return jwt.encode(
        {"sub": "dave", "roles": ["user"], "aud": AUDIENCE, "exp": int(time.time()) + 300, **claims},
        JWT_SECRET,
        algorithm="HS256",
    )


def problem(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/problem+json"), response.text
    body: dict[str, Any] = response.json()
    return body


async def agui_frames(response: httpx.Response) -> AsyncIterator[Frame]:
    """An AG-UI stream's events and heartbeats (not the harness's envelopes: ``frames`` would refuse them)."""
    async for line in response.aiter_lines():
        if line.startswith(("data: ", ":")):
            yield parse_frame(line.encode())


async def until(stream: AsyncIterator[Frame], wanted: Callable[[Frame], bool]) -> Frame:
    async for frame in stream:
        if wanted(frame):
            return frame
    raise AssertionError("the stream ended before the frame the test waits for")


async def rest_of(stream: AsyncIterator[Frame]) -> list[Frame]:
    """Every frame left until the stream closes; it must close, and cleanly (no cut body)."""
    async with asyncio.timeout(CLOSE_WITHIN_S):
        return [frame async for frame in stream]


def terminal(received: list[Frame]) -> list[Frame]:
    """The run's terminal events among ``received``: the harness's envelopes and AG-UI's run-ending events."""
    found = []
    for frame in received:
        if frame.is_comment:
            continue
        kind = frame.event or frame.data.get("type")
        if kind in TERMINAL_EVENT_TYPES or kind in ("RUN_FINISHED", "RUN_ERROR"):
            found.append(frame)
    return found


# --- finding 1 ---


async def test_a_subject_bound_to_no_account_gets_no_refund_or_deletion_proposed(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    tokens = write_tokens(tmp_path / "tokens.json", "alice", "erin")
    service = serve(with_auth(settings, tokens_file=tokens, jwt_secret=JWT_SECRET, jwt_audience=AUDIENCE))
    no_account_jwt = signed(sub="frank")
    asks = ("Please delete the account ACC-2001.", "Please refund invoice INV-1001.", "Delete my account.")
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        answers = {
            (who, ask): (await client.post("/chat", json={"message": ask}, headers=bearer(token))).json()
            for who, token in (("erin", ERIN), ("frank", no_account_jwt))
            for ask in asks
        }
        alices_own = (await client.post("/chat", json={"message": "Delete my account."}, headers=bearer(ALICE))).json()

    for asked, answer in answers.items():
        assert answer["status"] == "completed", asked
        assert answer["pending_approval"] is None, asked
        assert (answer["answer"]["kind"], answer["answer"]["reason"]) == ("action_not_possible", "wrong_account")
        assert answer["answer"]["text"].startswith("Your sign-in is linked to no account"), asked
    assert alices_own["status"] == "paused", "ACC-2001 is still there, and still its owner's to delete"
    assert alices_own["pending_approval"]["summary"] == "Delete account ACC-2001 (irreversible)"


# --- finding 2 ---


async def test_a_jwt_that_never_expires_is_refused(serve: Callable[..., LiveServer], settings: Settings) -> None:
    service = serve(with_auth(settings, jwt_secret=JWT_SECRET, jwt_audience=AUDIENCE))
    forever = jwt.encode({"sub": "dave", "roles": ["user"], "aud": AUDIENCE}, JWT_SECRET, algorithm="HS256")
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        refused = await client.get("/approvals", headers=bearer(forever))
        expiring = await client.get("/approvals", headers=bearer(signed()))

    assert (refused.status_code, problem(refused)["code"]) == (401, "token_malformed")
    assert "`exp`" in problem(refused)["detail"]
    assert refused.headers["www-authenticate"].startswith('Bearer realm="agent-harness", error="invalid_token"')
    assert expiring.status_code == 200


@pytest.mark.parametrize(
    ("env", "complaint"),
    [
        ({"HARNESS_JWT_SECRET": "x" * 40}, "neither HARNESS_JWT_AUDIENCE nor HARNESS_JWT_ISSUER"),
        ({"HARNESS_JWT_SECRET": "a-short-secret", "HARNESS_JWT_AUDIENCE": AUDIENCE}, "at least 32 bytes"),
        (
            {"HARNESS_JWT_JWKS_URL": "http://id.example.test/jwks.json", "HARNESS_JWT_ISSUER": "https://id.test/"},
            "HARNESS_JWT_JWKS_URL must be an https URL (http only on loopback)",
        ),
    ],
    ids=["no-audience-nor-issuer", "short-secret", "http-jwks-url"],
)
def test_the_service_refuses_to_start_with_jwt_settings_that_take_tokens_they_should_not(
    tmp_path: Path, env: dict[str, str], complaint: str
) -> None:
    finished = serve_once({"HARNESS_DATA_DIR": str(tmp_path / "data"), **env})

    assert finished.returncode == 2, finished.stderr
    [line] = finished.stderr.strip().splitlines()
    assert line.startswith("harness: ")
    assert complaint in line


@pytest.fixture
def jwks() -> Iterator[JwksServer]:
    with jwks_server() as server:
        yield server


def jwks_claims(**claims: Any) -> dict[str, Any]:
    return {"sub": "dave", "roles": ["user"], "aud": AUDIENCE, "exp": int(time.time()) + 300, **claims}


async def test_a_published_key_of_an_unexpected_type_is_a_401_not_a_500(
    serve: Callable[..., LiveServer], settings: Settings, jwks: JwksServer
) -> None:
    token_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks.publish("key", ec.generate_private_key(ec.SECP256R1()).public_key())  # an EC key where RS256 is used
    jwks.keys.append({"kty": "oct", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ", "kid": "shared"})
    service = serve(with_auth(settings, jwks_url=jwks.url, jwt_audience=AUDIENCE))
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        answers = [
            await client.get("/approvals", headers=bearer(signed_with(token_key, kid, jwks_claims())))
            for kid in ("key", "shared")
        ]

    for answer in answers:
        assert (answer.status_code, problem(answer)["code"]) == (401, "token_signature_invalid")


async def test_a_hanging_jwks_endpoint_holds_no_worker_thread_and_gets_one_fetch(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path, jwks: JwksServer
) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks.publish("published", key.public_key())
    jwks.hold()
    tokens = write_tokens(tmp_path / "tokens.json", "alice")
    service = serve(with_auth(settings, tokens_file=tokens, jwks_url=jwks.url, jwt_audience=AUDIENCE))
    unknown = [signed_with(key, f"unknown-{number}", jwks_claims()) for number in range(40)]
    async with httpx.AsyncClient(base_url=service.url, timeout=60, limits=httpx.Limits(max_connections=60)) as client:
        waiting = [asyncio.ensure_future(client.get("/approvals", headers=bearer(token))) for token in unknown]
        assert await asyncio.to_thread(jwks.fetched.wait, CLOSE_WITHIN_S), "the key set was never fetched"
        # the endpoint holds that fetch unanswered until the turn is over: nothing else may wait for it
        health = await client.get("/healthz", timeout=CLOSE_WITHIN_S)
        turn = await client.post("/chat", json=PASSWORD, headers=bearer(ALICE), timeout=CLOSE_WITHIN_S)
        jwks.answer()
        refused = await asyncio.gather(*waiting)

    assert health.status_code == 200
    assert turn.json()["status"] == "completed"
    assert jwks.fetches == 1, "forty tokens naming unknown keys, one fetch"
    for answer in refused:
        # 401 when the key set came back without their keys, 503 when the fetch gave up first
        assert answer.status_code in (401, 503), answer.text
        assert problem(answer)["code"] in ("token_signature_invalid", "service_unavailable")


# --- finding 7 ---


async def test_a_revoked_token_is_refused_and_its_open_streams_close_without_a_terminal_event(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    tokens = write_tokens(tmp_path / "tokens.json", "alice", "bob", "carol")
    slow = msgspec.structs.replace(
        settings, heartbeat_s=0.5, agent=msgspec.structs.replace(settings.agent, stub=StubConfig(token_delay_ms=250))
    )
    service = serve(with_auth(slow, tokens_file=tokens, approver_role="approver"))
    async with httpx.AsyncClient(base_url=service.url, timeout=60) as client:
        paused, bobs = [
            response.json()
            for response in await asyncio.gather(
                client.post("/chat", json=REFUND, headers=bearer(ALICE)),
                client.post("/chat", json=BOBS_REFUND, headers=bearer(BOB)),
            )
        ]
        events = f"/runs/{paused['run_id']}/events"
        last_seq = (await client.get(f"/runs/{paused['run_id']}", headers=bearer(ALICE))).json()["last_seq"]
        agui = {
            "threadId": "s_revoked_agui",
            "runId": "agui-1",
            "messages": [{"id": "m1", "role": "user", "content": PASSWORD["message"]}],
        }
        async with AsyncExitStack() as open_streams:
            opened = {
                "events": client.stream("GET", events, headers=bearer(ALICE)),
                "turn": client.stream("POST", "/chat", json=PASSWORD, headers=SSE | bearer(ALICE)),
                "ag-ui": client.stream("POST", "/ag-ui", json=agui, headers=bearer(ALICE)),
                "bob": client.stream("GET", f"/runs/{bobs['run_id']}/events", headers=bearer(BOB)),
            }
            streams = {
                name: (agui_frames if name == "ag-ui" else frames)(await open_streams.enter_async_context(s))
                for name, s in opened.items()
            }
            await until(streams["events"], lambda frame: frame.event == "paused")
            await until(streams["turn"], lambda frame: frame.event == "token_delta")
            await until(streams["ag-ui"], lambda frame: frame.data.get("type") == "TEXT_MESSAGE_CONTENT")
            await until(streams["bob"], lambda frame: frame.event == "paused")

            write_tokens(tokens, "bob", "carol")

            after = {name: await rest_of(streams[name]) for name in ("events", "turn", "ag-ui")}
            reconnect = await client.get(events, headers=bearer(ALICE) | {"Last-Event-ID": f"{paused['run_id']}:1"})
            await client.post("/chat/resume", json=rejection(bobs), headers=bearer(CAROL))
            bob_still_served = terminal(await rest_of(streams["bob"]))
        run_as_approver = (await client.get(f"/runs/{paused['run_id']}", headers=bearer(CAROL))).json()

    for name, received in after.items():
        assert terminal(received) == [], f"the {name} stream ended the run"
    assert (reconnect.status_code, problem(reconnect)["code"]) == (401, "token_unknown")
    assert [frame.event for frame in bob_still_served] == ["turn_completed"], "another subject's stream went on"
    assert run_as_approver["status"] == "waiting", "the run itself goes on"
    assert run_as_approver["last_seq"] == last_seq, "and nothing was added to it"


def rejection(paused: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": paused["run_id"], "approval_id": paused["pending_approval"]["approval_id"], "decision": "reject"}


async def test_a_revoked_tokens_streams_close_on_every_instance_of_a_cluster(tmp_path: Path) -> None:
    tokens = write_tokens(tmp_path / "tokens.json", "alice", "bob", "carol")
    env = {
        "HARNESS_AUTH_TOKENS_FILE": str(tokens),
        "HARNESS_APPROVER_ROLE": "approver",
        "HARNESS_HEARTBEAT_S": "0.5",
        "HARNESS_STUB_TOKEN_DELAY_MS": "0",
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
    }
    with fresh_shared_stores() as shared:
        first = HarnessProcess({**shared.env, **env, "HARNESS_DATA_DIR": str(tmp_path / "first")})
        second = HarnessProcess({**shared.env, **env, "HARNESS_DATA_DIR": str(tmp_path / "second")})
        try:
            await first.start()
            await second.start()
            async with httpx.AsyncClient(timeout=60) as client:
                paused = (await client.post(f"{first.url}/chat", json=REFUND, headers=bearer(ALICE))).json()
                bobs = (await client.post(f"{second.url}/chat", json=BOBS_REFUND, headers=bearer(BOB))).json()
                run_path = f"/runs/{paused['run_id']}"
                async with AsyncExitStack() as open_streams:
                    opened = {
                        "first": client.stream("GET", f"{first.url}{run_path}/events", headers=bearer(ALICE)),
                        "second": client.stream("GET", f"{second.url}{run_path}/events", headers=bearer(ALICE)),
                        "bob": client.stream("GET", f"{second.url}/runs/{bobs['run_id']}/events", headers=bearer(BOB)),
                    }
                    streams = {name: frames(await open_streams.enter_async_context(s)) for name, s in opened.items()}
                    for stream in streams.values():
                        await until(stream, lambda frame: frame.event == "paused")

                    write_tokens(tokens, "bob", "carol")
                    assert second.process is not None
                    second.process.send_signal(signal.SIGHUP)  # the second re-reads at once; the first notices

                    after = {name: await rest_of(streams[name]) for name in ("first", "second")}
                    refused = [
                        await client.get(f"{instance.url}{run_path}/events", headers=bearer(ALICE))
                        for instance in (first, second)
                    ]
                    await client.post(f"{first.url}/chat/resume", json=rejection(bobs), headers=bearer(CAROL))
                    bob_still_served = terminal(await rest_of(streams["bob"]))
                waiting = (await client.get(f"{first.url}{run_path}", headers=bearer(CAROL))).json()
            second_log = second.stderr()
            still_running = second.process.poll() is None
        finally:
            first.close()
            second.close()

    for name, received in after.items():
        assert terminal(received) == [], f"the stream on the {name} instance ended the run"
    for response in refused:
        assert (response.status_code, problem(response)["code"]) == (401, "token_unknown")
    assert [frame.event for frame in bob_still_served] == ["turn_completed"], "another subject's stream went on"
    assert waiting["status"] == "waiting", "the run itself goes on"
    assert still_running, "SIGHUP re-reads the tokens file; it does not stop the instance"
    assert "HARNESS_AUTH_TOKENS_FILE re-read (SIGHUP)" in second_log


async def test_a_jwts_stream_closes_once_its_exp_passes(serve: Callable[..., LiveServer], settings: Settings) -> None:
    service = serve(
        with_auth(msgspec.structs.replace(settings, heartbeat_s=0.5), jwt_secret=JWT_SECRET, jwt_audience=AUDIENCE)
    )
    lasting = signed(account_id="ACC-2001")
    async with httpx.AsyncClient(base_url=service.url, timeout=60) as client:
        paused = (await client.post("/chat", json=REFUND, headers=bearer(lasting))).json()
        events = f"/runs/{paused['run_id']}/events"
        short_lived = signed(account_id="ACC-2001", exp=int(time.time()) + 3)
        async with client.stream("GET", events, headers=bearer(short_lived)) as response:
            stream = frames(response)
            await until(stream, lambda frame: frame.event == "paused")
            after = await rest_of(stream)
        reconnect = await client.get(events, headers=bearer(short_lived))
        still_readable = await client.get(f"/runs/{paused['run_id']}", headers=bearer(lasting))

    assert terminal(after) == []
    assert (reconnect.status_code, problem(reconnect)["code"]) == (401, "token_expired")
    assert still_readable.json()["status"] == "waiting", "the run itself goes on"


async def test_a_json_wait_on_a_run_ends_when_its_token_is_revoked_and_the_run_goes_on(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    """A JSON ``/chat`` and a ``/runs/wait`` are held as streams are: revoking the token ends each, the run goes on."""
    tokens = write_tokens(tmp_path / "tokens.json", "alice", "carol")
    slow = msgspec.structs.replace(
        settings, agent=msgspec.structs.replace(settings.agent, stub=StubConfig(token_delay_ms=1000))
    )
    service = serve(with_auth(slow, tokens_file=tokens))
    async with httpx.AsyncClient(base_url=service.url, timeout=CLOSE_WITHIN_S + 30) as client:
        created = await client.post("/threads", json={"thread_id": "t_json_wait"}, headers=bearer(ALICE))
        assert created.status_code == 200, created.text
        wait = {"assistant_id": "support", "input": PASSWORD}
        turn = asyncio.ensure_future(
            client.post("/chat", json=PASSWORD | {"session_id": "s_json_wait"}, headers=bearer(ALICE))
        )
        waited = asyncio.ensure_future(client.post("/threads/t_json_wait/runs/wait", json=wait, headers=bearer(ALICE)))
        threads = ("s_json_wait", "t_json_wait")
        deadline = time.monotonic() + CLOSE_WITHIN_S
        while await statuses(client, threads) != ["running", "running"]:  # a token a second: long after the revocation
            assert time.monotonic() < deadline, "the two runs did not start"
            await asyncio.sleep(0.1)

        write_tokens(tokens, "carol")
        answered, cut = await asyncio.wait_for(asyncio.gather(turn, waited), CLOSE_WITHIN_S)
        write_tokens(tokens, "alice", "carol")
        deadline = time.monotonic() + CLOSE_WITHIN_S
        while (await client.get("/threads/t_json_wait/runs", headers=bearer(ALICE))).status_code == 401:
            assert time.monotonic() < deadline, "the token was not taken back"
            await asyncio.sleep(0.2)
        running = await statuses(client, threads)

    assert (answered.status_code, problem(answered)["code"]) == (401, "token_unknown")
    assert cut.status_code == 200
    assert cut.text.strip() == "", "the wait ended with no result"
    assert running == ["running", "running"], "both runs go on"


async def statuses(client: httpx.AsyncClient, threads: tuple[str, ...]) -> list[str]:
    """The status of each thread's newest run (``none`` while it has none), as alice reads them."""
    found = []
    for thread_id in threads:
        response = await client.get(f"/threads/{thread_id}/runs", headers=bearer(ALICE))
        runs = response.json() if response.status_code == 200 else []
        found.append(runs[0]["status"] if runs else "none")
    return found
