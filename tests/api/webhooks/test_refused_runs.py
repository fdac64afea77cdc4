"""A run whose ``webhook`` is refused (422 ``webhook_not_allowed``) leaves nothing behind: no thread of its own, no
thread made for it by ``if_not_exists: "create"``, whichever way it was asked for and whatever its multitask
strategy (the app's default settings allow no host, so every webhook is refused)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from litestar.testing import AsyncTestClient

TURN = {"assistant_id": "support", "input": {"message": "Where is my order A-1002?"}}
HOOK = "https://hooks.example.com/runs"


async def thread_ids(client: AsyncTestClient) -> set[str]:
    response = await client.post("/threads/search", json={"limit": 1000})
    assert response.status_code == 200, response.text
    return {thread["thread_id"] for thread in response.json()}


@pytest.mark.parametrize("strategy", ["enqueue", "reject"])
@pytest.mark.parametrize(
    "path",
    [
        "/runs/wait",
        "/runs/stream",
        "/threads/{new}/runs",
        "/threads/{new}/runs/wait",
        "/threads/{new}/runs/stream",
    ],
)
async def test_a_run_with_a_refused_webhook_makes_no_thread(client: AsyncTestClient, path: str, strategy: str) -> None:
    await client.post("/chat", json={"message": "How do I reset my password?"})  # a thread that was there before
    before = await thread_ids(client)
    new = str(uuid.uuid4())
    body: dict[str, Any] = {**TURN, "webhook": HOOK, "multitask_strategy": strategy, "if_not_exists": "create"}
    if not path.startswith("/threads"):
        del body["if_not_exists"]

    refused = await client.post(path.format(new=new), json=body)

    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "webhook_not_allowed"
    assert await thread_ids(client) == before
    assert (await client.get(f"/threads/{new}")).status_code == 404
