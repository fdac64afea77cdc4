from __future__ import annotations

from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from api.negotiation import wants_event_stream

GOLDEN = (Path(__file__).parent / "fixtures" / "chat_password_reset.json").read_bytes().rstrip(b"\n")


@pytest.mark.parametrize(
    "accept",
    [
        "text/event-stream",
        "TEXT/EVENT-STREAM",
        "text/event-stream;q=0.9, application/json;q=0.5",
        "application/json;q=0.5, text/event-stream",
        "text/event-stream, */*;q=0.1",
    ],
)
def test_the_stream_when_it_ranks_strictly_first(accept: str) -> None:
    assert wants_event_stream(accept)


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "application/json",
        "*/*",
        "text/*",
        "application/xml",
        "text/event-stream, application/json",
        "text/event-stream;q=0.5, application/json",
        "text/event-stream;q=0.5, */*",
        "text/event-stream;q=0",
        "text/event-stream;q=oops",
    ],
)
def test_json_otherwise(accept: str | None) -> None:
    assert not wants_event_stream(accept)


@pytest.mark.parametrize("accept", ["application/json", "*/*", "text/*", None, "application/x-unknown"])
async def test_json_answer_is_byte_identical_whatever_the_accept_header(
    deterministic_client: AsyncTestClient, accept: str | None
) -> None:
    headers = {} if accept is None else {"Accept": accept}
    if accept is None:
        deterministic_client.headers.pop("accept", None)
    response = await deterministic_client.post(
        "/chat", json={"message": "How do I reset my password?"}, headers=headers
    )

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == GOLDEN
