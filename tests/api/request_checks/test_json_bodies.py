"""The JSON body check in process: media types, and bodies the depth limit lets through."""

from __future__ import annotations

import json

import pytest
from litestar.testing import AsyncTestClient

from api.request_checks.json_bodies import is_json_media_type

QUESTION = "How do I reset my password?"


@pytest.mark.parametrize(
    ("content_type", "accepted"),
    [
        ("application/json", True),
        ("Application/JSON; charset=UTF-8", True),
        ("application/vnd.api+json", True),
        ("application/merge-patch+json;charset=utf-8", True),
        ("application/+json", False),
        ("application/jsonp", False),
        ("text/json", False),
        ("text/plain", False),
        ("application/x-www-form-urlencoded", False),
        ("multipart/form-data; boundary=x", False),
        ("", False),
    ],
)
def test_json_media_types(content_type: str, accepted: bool) -> None:
    assert is_json_media_type(content_type) is accepted


async def test_a_body_within_the_depth_limit_is_taken_and_brackets_in_text_are_text(client: AsyncTestClient) -> None:
    ag_ui = {
        "threadId": "t-within",
        "runId": "r1",
        "messages": [{"id": "m", "role": "user", "content": QUESTION}],
        "forwardedProps": json.loads("[" * 60 + "{}" + "]" * 60),
    }
    streamed = await client.post("/ag-ui", json=ag_ui)
    assert streamed.status_code == 200, streamed.text
    assert "RUN_FINISHED" in streamed.text
    brackets = await client.post("/chat", json={"message": "[" * 1500 + QUESTION + "]" * 1500})
    assert brackets.status_code == 200, brackets.text


async def test_a_route_without_a_body_ignores_the_media_type(client: AsyncTestClient) -> None:
    response = await client.get("/approvals", headers={"Content-Type": "text/plain"})
    assert response.status_code == 200


async def test_an_empty_json_body_is_still_the_schema_s_422(client: AsyncTestClient) -> None:
    response = await client.post("/chat", headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert response.json()["code"] != "unsupported_media_type"
