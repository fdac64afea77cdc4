"""At the default level, no line ``harness serve`` logs carries message text, answers, tokens or keys.

A real ``harness serve`` (its own logging setup, uvicorn's access log, httpx, psycopg and redis loggers
included) on both store kinds, on a recording fake provider, takes turns carrying planted values (JSON and
SSE, refused and allowed, paused and resumed with a comment, paths and headers); then its whole output is
searched for each of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from tests.support.decisions import decision_for
from tests.support.harness_process import HarnessProcess
from tests.support.recording_provider import ANSWER_TEXT, recording_provider
from tests.support.sse import frames

if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.shared_stores import SharedStores

QUESTION_MARKER = "quokkamarker"
COMMENT_MARKER = "wombatmarker"
CARD = "4111 1111 1111 1111"
NATIONAL_ID = "123-45-6789"
IBAN = "DE89 3704 0044 0532 0130 00"
PASTED_KEY = "sk-proj-plantedpastedkey0123456789"
PATH_KEY = "sk-proj-plantedpathkey0123456789"
PROVIDER_KEY = "gsk_PlantedProviderKeyWithNoKnownShape0123"
BEARER = "planted-bearer-token-0123456789abcdef"
ENCRYPTION_KEY = bytes(range(100, 132)).hex()
PLANTED = {
    "question": QUESTION_MARKER,
    "comment": COMMENT_MARKER,
    "answer": "follow the steps there",
    "card": "4111",
    "national id": NATIONAL_ID,
    "iban": "DE89",
    "pasted key": "plantedpastedkey",
    "key in a path": "plantedpathkey",
    "provider key": PROVIDER_KEY,
    "bearer token": BEARER,
    "encryption key": ENCRYPTION_KEY,
}


async def turn(client: httpx.AsyncClient, message: str, session_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = (await client.post("/chat", json={"message": message, "session_id": session_id})).json()
    return body


async def streamed_turn(client: httpx.AsyncClient, message: str, session_id: str) -> None:
    request = {"message": message, "session_id": session_id}
    async with client.stream("POST", "/chat", json=request, headers={"Accept": "text/event-stream"}) as response:
        assert [frame async for frame in frames(response)][-1].data["type"] == "turn_completed"


async def test_no_log_line_carries_text_answers_tokens_or_keys(tmp_path: Path, stores: SharedStores | None) -> None:
    async with recording_provider() as provider:
        env = {
            "HARNESS_DATA_DIR": str(tmp_path / "data"),
            "HARNESS_LLM_PROVIDER": "openai",
            "HARNESS_LLM_BASE_URL": provider.base_url,
            "HARNESS_LLM_MODEL": "m",
            "HARNESS_LLM_API_KEY": PROVIDER_KEY,
            "HARNESS_ENCRYPTION_KEY": ENCRYPTION_KEY,
            **(stores.env if stores else {}),
        }
        server = await HarnessProcess(env).start()
        try:
            headers = {"Authorization": f"Bearer {BEARER}"}
            async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30) as client:
                answered = await turn(client, f"How do I change my plan? {QUESTION_MARKER}")
                session = answered["session_id"]
                await streamed_turn(client, f"My card number is {CARD}, update billing", session)
                await turn(client, f"My SSN is {NATIONAL_ID}", session)
                await streamed_turn(client, f"Send it to {IBAN}", session)
                await turn(client, f"My key is {PASTED_KEY}", session)
                paused = await turn(client, "Please refund invoice INV-1002.", session)
                decision = decision_for(paused, "reject", f"{COMMENT_MARKER}: paid with {CARD}")
                rejected = (await client.post("/chat/resume", json=decision)).json()
                lost = await client.get(f"/runs/{PATH_KEY}")
                queried = await client.get(f"/runs/{paused['run_id']}", params={"card": CARD.replace(" ", "")})
        finally:
            server.terminate()  # a graceful stop: what it logs while stopping counts too
            log = server.stderr()
            server.close()

    assert answered["answer"]["text"] == ANSWER_TEXT
    assert (paused["status"], rejected["status"], lost.status_code, queried.status_code) == (
        "paused",
        "rejected",
        404,
        200,
    )
    assert provider.requests, "the turns reached the provider, with its key"
    assert '"POST /chat HTTP/1.1" 200' in log, "the access log was captured"
    assert "GET /runs/[REDACTED KEY] HTTP/1.1" in log, "a key in a path is masked, the line kept"
    leaked = {name: value for name, value in PLANTED.items() if value in log}
    assert leaked == {}, log
