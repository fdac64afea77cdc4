"""The proof that personal data is stored nowhere, and that an erased or purged session leaves nothing behind.

A card number, a national id, an IBAN, an API-key-shaped string and an email are planted in every way a
client can send something: messages (JSON and SSE, refused and allowed), the comment on a decision (a pause
approved over SSE, another rejected over JSON), session ids (new turns, resumes, reads, cursors, AG-UI threads,
erasures) and headers on every request. Then every store is read byte by byte (the SQLite files with their
WALs, every PostgreSQL table, every Redis key) and so is every response, status line, headers and body: the
first four appear nowhere; the email, which is not refused, is found (so the scan sees what is stored). After
``DELETE /sessions/{id}``, and after ``harness purge``, the text of the sessions they removed is in no store.
On the embedded stores and on the shared ones, over real HTTP.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import httpx

from tests.support.decisions import decision_for
from tests.support.sse import frames
from tests.support.store_bytes import stored_bytes

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.shared_stores import SharedStores

CARD = "4111 1111 1111 1111"
NATIONAL_ID = "078-05-1120"
IBAN = "DE89 3704 0044 0532 0130 00"
KEY = "sk-proj-plantedscankey0123456789"
EMAIL = "jane.planted@example.com"
PURGED_EMAIL = "numbat.planted@example.com"
NEVER = {
    "card": "4111111111111111",
    "national id": "078051120",
    "iban": "DE89370400440532013000",
    "key": "plantedscankey",
}
"""What must appear nowhere, as it reads once spaces, dots and dashes are taken out."""
EVERYTHING = f"card {CARD}, ssn {NATIONAL_ID}, iban {IBAN}, key {KEY}, mail {EMAIL}"
HEADERS = {
    "X-Card": CARD,
    "X-National-Id": NATIONAL_ID,
    "X-Iban": IBAN,
    "X-Email": EMAIL,
    "User-Agent": f"scanner/1.0 ({KEY})",
    "Authorization": f"Bearer {KEY}",
}
ID_ATTEMPTS = [NEVER["card"], "4111-1111-1111-1111", NATIONAL_ID, NEVER["iban"], KEY]
"""Session ids a client makes up, in shapes the id pattern admits."""
SSE = {"Accept": "text/event-stream"}


def found(data: bytes) -> set[str]:
    """Which of ``NEVER`` ``data`` carries."""
    text = re.sub(r"[\s.\-]", "", data.decode("utf-8", "replace"))
    return {name for name, value in NEVER.items() if value in text}


class Recorder:
    """Every response the test gets, as bytes: status line, headers and body (streams as they arrived)."""

    def __init__(self) -> None:
        self.responses: list[bytes] = []

    def keep(self, response: httpx.Response, body: bytes) -> None:
        head = [f"{response.status_code} {response.reason_phrase}".encode()]
        head += [name + b": " + value for name, value in response.headers.raw]
        self.responses.append(b"\n".join([*head, b"", body]))

    async def call(self, client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> httpx.Response:
        response = await client.request(method, url, **kwargs)
        self.keep(response, response.content)
        return response

    async def chat(self, client: httpx.AsyncClient, message: str, session_id: str | None) -> dict[str, Any]:
        response = await self.call(client, "POST", "/chat", json={"message": message, "session_id": session_id})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def stream(self, client: httpx.AsyncClient, url: str, body: dict[str, Any], until: str) -> dict[str, Any]:
        """POST ``body`` for an event stream, read through the first event of type ``until``; its envelope."""
        raw = b""
        async with client.stream("POST", url, json=body, headers=SSE) as response:
            async for frame in frames(response):
                raw += frame.raw + b"\n\n"
                if frame.event == until:
                    self.keep(response, raw)
                    envelope: dict[str, Any] = frame.data
                    return envelope
        raise AssertionError(f"the stream ended before {until}")


async def take_turns(client: httpx.AsyncClient, record: Recorder) -> tuple[str, dict[str, Any]]:
    """Turns carrying every planted value, every way in; the session they share, and one of its runs."""
    answered = await record.chat(client, f"How do I reset my password? Write to {EMAIL}", None)
    session = answered["session_id"]
    refused = [
        await record.chat(client, f"My card number is {CARD}, update billing", session),
        (
            await record.stream(
                client, "/chat", {"message": f"My SSN is {NATIONAL_ID}", "session_id": session}, "turn_completed"
            )
        )["data"]["response"],
        (
            await record.stream(
                client, "/chat", {"message": f"Send it to {IBAN}", "session_id": session}, "turn_completed"
            )
        )["data"]["response"],
        await record.chat(client, f"My key is {KEY}, is it safe?", session),
    ]
    assert answered["status"] == "completed"
    assert [turn["status"] for turn in refused] == ["refused"] * 4
    paused = await record.chat(client, "Please refund invoice INV-1001.", session)
    rejected = await record.call(client, "POST", "/chat/resume", json=decision_for(paused, "reject", EVERYTHING))
    assert rejected.json()["status"] == "rejected"
    streamed = await record.stream(
        client, "/chat", {"message": "Please refund invoice INV-1002.", "session_id": session}, "paused"
    )
    decision = {
        "run_id": streamed["run_id"],
        "approval_id": streamed["data"]["approval"]["approval_id"],
        "decision": "approve",
        "comment": EVERYTHING,
        "session_id": session,
    }
    approved = await record.stream(client, "/chat/resume", decision, "turn_completed")
    assert approved["data"]["response"]["status"] == "completed"
    return session, answered


async def try_ids(client: httpx.AsyncClient, record: Recorder, answered: dict[str, Any]) -> None:
    """Every route that takes a session or run id, given ids shaped like what must not be stored."""
    run_id = answered["run_id"]
    for made_up in [*ID_ATTEMPTS, CARD]:
        statuses = [
            (await record.call(client, "POST", "/chat", json={"message": "Hello", "session_id": made_up})).status_code,
            (await record.call(client, "DELETE", f"/sessions/{made_up}")).status_code,
            (await record.call(client, "GET", f"/runs/{made_up}")).status_code,
            (await record.call(client, "GET", f"/runs/{run_id}", params={"session_id": made_up})).status_code,
            (
                await record.call(client, "GET", f"/runs/{run_id}/events", headers={"Last-Event-ID": f"{made_up}:1"})
            ).status_code,
            (
                await record.call(
                    client,
                    "POST",
                    "/ag-ui",
                    json={
                        "threadId": made_up,
                        "runId": "x",
                        "messages": [{"id": "m", "role": "user", "content": "Hi"}],
                    },
                )
            ).status_code,
        ]
        assert statuses[0] == statuses[1] == statuses[5] == 422, (made_up, statuses)
        assert statuses[2] == 404 or made_up == CARD
        assert statuses[3] in (404, 422)
        assert statuses[4] == 422


def stores_carrying(text: str, settings: Settings, stores: SharedStores | None) -> list[str]:
    return [where for where, data in stored_bytes(settings.agent.data_dir, stores).items() if text.encode() in data]


def harness_purge(settings: Settings, stores: SharedStores | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("HARNESS_")}
    env |= {"HARNESS_DATA_DIR": str(settings.agent.data_dir), **(stores.env if stores else {})}
    return subprocess.run(
        [sys.executable, "-m", "api.cli", "purge", "--older-than", "0s"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_planted_personal_data_is_stored_nowhere_and_erased_sessions_leave_nothing(
    serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None
) -> None:
    server = serve(settings)
    record = Recorder()
    async with httpx.AsyncClient(base_url=server.url, headers=HEADERS, timeout=30) as client:
        session, answered = await take_turns(client, record)
        await try_ids(client, record, answered)

        stored = stored_bytes(settings.agent.data_dir, stores)
        assert {where: found(data) for where, data in stored.items() if found(data)} == {}
        leaked = {index: found(response) for index, response in enumerate(record.responses) if found(response)}
        assert leaked == {}, [record.responses[index][:300] for index in leaked]
        assert stores_carrying(EMAIL, settings, stores), "the scan sees what the stores keep"

        erased = await record.call(client, "DELETE", f"/sessions/{session}")
        assert erased.status_code == 204
        assert stores_carrying(EMAIL, settings, stores) == [], "the erased session's text is gone"
        assert stores_carrying(session, settings, stores) == []

        purged = await record.chat(client, f"How do I export my data? Write to {PURGED_EMAIL}", None)
        assert stores_carrying(PURGED_EMAIL, settings, stores)
        done = await asyncio.to_thread(harness_purge, settings, stores)
        assert done.returncode == 0, done.stderr
        assert stores_carrying(PURGED_EMAIL, settings, stores) == [], "the purged session's text is gone"
        assert stores_carrying(purged["session_id"], settings, stores) == []
        assert (await record.call(client, "GET", f"/runs/{purged['run_id']}")).status_code == 404
