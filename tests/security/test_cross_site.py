"""Issue 24, finding 4: a web page of any origin must not drive a local instance (identity off, `make serve`).

Over a real uvicorn with the service's own defaults: a JSON body sent as a CORS "simple" request (``text/plain``,
a form, no type at all) starts nothing; a DNS-rebinding page, whose requests name its own host, reads and
approves nothing; a page of a foreign origin changes nothing; and CORS headers go only to the origins the
operator lists.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from agent.config import AgentConfig, StubConfig
from api.auth.config import AuthConfig
from api.settings import Settings
from contracts import PROBLEM_MEDIA_TYPE
from tests.support.decisions import decision_for

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.e2e.conftest import LiveServer

QUESTION = {"message": "How do I reset my password?"}
REFUND = {"message": "Please refund invoice INV-1001."}
ATTACKER = "https://attacker.example"
LISTED = "https://app.example.com"


@pytest.fixture
def local(tmp_path: Path) -> Settings:
    """What `make serve` runs with (identity off, the default allowed hosts), fast, on a fresh data directory."""
    return Settings(
        rate_limit_per_minute=0, agent=AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0))
    )


def runs_stored(settings: Settings) -> int:
    with contextlib.closing(sqlite3.connect(settings.agent.data_dir / "events.sqlite")) as db:
        count: int = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    return count


def assert_problem(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM_MEDIA_TYPE
    assert response.json()["code"] == code


def cors_headers(response: httpx.Response) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name.startswith("access-control-")}


async def paused_refund(client: httpx.AsyncClient) -> dict[str, Any]:
    paused: dict[str, Any] = (await client.post("/chat", json=REFUND)).json()
    assert paused["status"] == "paused"
    return paused


async def run_status(client: httpx.AsyncClient, run_id: str) -> str:
    status: str = (await client.get(f"/runs/{run_id}")).json()["status"]
    return status


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=cross-site",
        None,
    ],
)
async def test_a_json_body_of_another_media_type_is_415_and_starts_no_run(
    serve: Callable[..., LiveServer],
    local: Settings,
    content_type: str | None,
) -> None:
    server = serve(local)
    body = json.dumps(QUESTION).encode()
    async with httpx.AsyncClient(base_url=server.url) as client:
        refused = await client.post(
            "/chat", content=body, headers={} if content_type is None else {"Content-Type": content_type}
        )
        assert_problem(refused, 415, "unsupported_media_type")
        assert runs_stored(local) == 0

        accepted = await client.post("/chat", content=body, headers={"Content-Type": "application/json; charset=utf-8"})
        assert accepted.status_code == 200, accepted.text
        assert runs_stored(local) == 1


async def test_a_text_plain_decision_or_ag_ui_run_is_415_and_changes_nothing(
    serve: Callable[..., LiveServer],
    local: Settings,
) -> None:
    server = serve(local)
    async with httpx.AsyncClient(base_url=server.url) as client:
        paused = await paused_refund(client)
        plain = {"Content-Type": "text/plain"}
        approve = json.dumps(decision_for(paused, "approve")).encode()
        assert_problem(await client.post("/chat/resume", content=approve, headers=plain), 415, "unsupported_media_type")
        assert await run_status(client, paused["run_id"]) == "waiting"

        ag_ui = {
            "threadId": "cross-site-thread",
            "runId": "r1",
            "messages": [{"id": "m1", "role": "user", "content": "Hi"}],
        }
        assert_problem(
            await client.post("/ag-ui", content=json.dumps(ag_ui).encode(), headers=plain),
            415,
            "unsupported_media_type",
        )
        assert runs_stored(local) == 1


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:{port}", "127.0.0.1.attacker.example:{port}"])
async def test_a_dns_rebinding_page_reads_and_approves_nothing(
    serve: Callable[..., LiveServer],
    local: Settings,
    host: str,
) -> None:
    server = serve(local)
    rebound = {"Host": host.format(port=server.port)}
    async with httpx.AsyncClient(base_url=server.url) as client:
        paused = await paused_refund(client)

        assert_problem(await client.get("/approvals", headers=rebound), 421, "host_not_allowed")
        assert_problem(await client.get(f"/runs/{paused['run_id']}", headers=rebound), 421, "host_not_allowed")
        approval = await client.post("/chat/resume", json=decision_for(paused, "approve"), headers=rebound)
        assert_problem(approval, 421, "host_not_allowed")
        assert_problem(await client.get("/", headers=rebound), 421, "host_not_allowed")

        assert await run_status(client, paused["run_id"]) == "waiting"
        for own in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", "LOCALHOST", f"[::1]:{server.port}"):
            listed = await client.get("/approvals", headers={"Host": own})
            assert listed.status_code == 200, (own, listed.text)
            assert [a["run_id"] for a in listed.json()["approvals"]] == [paused["run_id"]]


async def test_the_operators_hosts_replace_the_default(
    serve: Callable[..., LiveServer],
    local: Settings,
) -> None:
    server = serve(msgspec.structs.replace(local, allowed_hosts=("harness.example.com", "*.harness.example.com")))
    async with httpx.AsyncClient(base_url=server.url) as client:
        for host in ("harness.example.com", "harness.example.com:443", "eu.harness.example.com"):
            assert (await client.get("/healthz", headers={"Host": host})).status_code == 200, host
        for host in ("example.com", "evilharness.example.com", "127.0.0.1"):
            assert_problem(await client.get("/healthz", headers={"Host": host}), 421, "host_not_allowed")


@pytest.mark.parametrize(
    "origin", [ATTACKER, "null", "http://127.0.0.1", "http://localhost:{port}", "https://127.0.0.1:{port}"]
)
async def test_a_page_of_a_foreign_origin_changes_nothing(
    serve: Callable[..., LiveServer],
    local: Settings,
    origin: str,
) -> None:
    server = serve(local)
    foreign = {"Origin": origin.format(port=server.port)}
    async with httpx.AsyncClient(base_url=server.url) as client:
        paused = await paused_refund(client)

        assert_problem(await client.post("/chat", json=QUESTION, headers=foreign), 403, "origin_not_allowed")
        approval = await client.post("/chat/resume", json=decision_for(paused, "approve"), headers=foreign)
        assert_problem(approval, 403, "origin_not_allowed")
        cancel = await client.post(f"/runs/{paused['run_id']}/cancel", headers=foreign)
        assert_problem(cancel, 403, "origin_not_allowed")
        erasure = await client.delete(f"/sessions/{paused['session_id']}", headers=foreign)
        assert_problem(erasure, 403, "origin_not_allowed")

        assert await run_status(client, paused["run_id"]) == "waiting"
        assert runs_stored(local) == 1
        read = await client.get(f"/runs/{paused['run_id']}", headers=foreign)
        assert read.status_code == 200  # reading is not acting: a foreign page cannot see the answer anyway

        own = {"Origin": server.url}  # the service's own pages, and clients that send no Origin, act as ever
        resumed = await client.post("/chat/resume", json=decision_for(paused, "reject"), headers=own)
        assert resumed.status_code == 200, resumed.text
        assert (await client.post("/chat", json=QUESTION, headers=own)).status_code == 200
        assert (await client.delete(f"/sessions/{paused['session_id']}")).status_code == 204


async def test_with_identity_on_a_foreign_origin_is_refused_too(
    serve: Callable[..., LiveServer],
    local: Settings,
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [{"token": "alice-token-0123456789abcdef", "subject": "alice"}]}))
    server = serve(msgspec.structs.replace(local, auth=AuthConfig(tokens_file=tokens)))
    bearer = {"Authorization": "Bearer alice-token-0123456789abcdef"}
    async with httpx.AsyncClient(base_url=server.url, headers=bearer) as client:
        refused = await client.post("/chat", json=QUESTION, headers={"Origin": ATTACKER})
        assert_problem(refused, 403, "origin_not_allowed")
        assert runs_stored(local) == 0
        assert (await client.post("/chat", json=QUESTION)).status_code == 200


async def test_listed_origins_get_cors_headers_and_no_other_origin_does(
    serve: Callable[..., LiveServer],
    local: Settings,
) -> None:
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"}
    unlisted = serve(local)
    async with httpx.AsyncClient(base_url=unlisted.url) as client:
        for origin in (ATTACKER, LISTED, unlisted.url):  # none listed: no CORS header for anyone, preflights included
            assert cors_headers(await client.options("/chat", headers={"Origin": origin, **ask})) == {}, origin
            assert cors_headers(await client.get("/approvals", headers={"Origin": origin})) == {}, origin

    server = serve(msgspec.structs.replace(local, cors_origins=(LISTED,)))
    async with httpx.AsyncClient(base_url=server.url) as client:
        preflight = await client.options("/chat", headers={"Origin": LISTED, **ask})
        assert preflight.status_code == 204
        allowed = cors_headers(preflight)
        assert allowed["access-control-allow-origin"] == LISTED
        assert "POST" in allowed["access-control-allow-methods"]
        assert {"authorization", "content-type"} <= {
            h.strip().lower() for h in allowed["access-control-allow-headers"].split(",")
        }

        turn = await client.post("/chat", json=QUESTION, headers={"Origin": LISTED})
        assert turn.status_code == 200, turn.text
        assert turn.headers["access-control-allow-origin"] == LISTED
        assert "Run-Id" in turn.headers["access-control-expose-headers"]
        missing = await client.get("/runs/r-unknown", headers={"Origin": LISTED})
        assert missing.status_code == 404
        assert missing.headers["access-control-allow-origin"] == LISTED  # a listed page may read its errors too

        assert cors_headers(await client.options("/chat", headers={"Origin": ATTACKER, **ask})) == {}
        assert cors_headers(await client.get("/approvals", headers={"Origin": ATTACKER})) == {}
        assert_problem(
            await client.post("/chat", json=QUESTION, headers={"Origin": ATTACKER}), 403, "origin_not_allowed"
        )
