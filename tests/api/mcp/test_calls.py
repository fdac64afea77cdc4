"""``notifications/cancelled`` ends its call's run only where the request's threads show the call's thread: a
thread langgraph.json's auth filter hides is not found for a cancellation either."""

from __future__ import annotations

from typing import Any, cast

import pytest

from api.auth import Principal
from api.mcp.calls import McpCalls, thread_of_call
from api.mcp.jsonrpc import McpMessage


class _Threads:
    def __init__(self, *, hidden: bool) -> None:
        self.hidden = hidden

    async def hides(self, thread_id: str) -> bool:
        assert thread_id == thread_of_call("s-1", 9)
        return self.hidden

    async def active_run(self, thread_id: str) -> str | None:
        return "r-1"


class _Runs:
    def __init__(self) -> None:
        self.cancelled: list[str] = []

    async def get(self, run_id: str, principal: Principal) -> str:
        return run_id

    async def cancel(self, found: str, principal: Principal) -> None:
        self.cancelled.append(found)


@pytest.mark.parametrize(("hidden", "cancelled"), [(False, ["r-1"]), (True, [])])
async def test_a_cancellation_ends_the_run_of_a_thread_the_request_may_see(hidden: bool, cancelled: list[str]) -> None:
    runs = _Runs()
    calls = McpCalls(
        graphs=cast("Any", None),
        runs=cast("Any", runs),
        threads=cast("Any", _Threads(hidden=hidden)),
        streams=cast("Any", None),
        quota=cast("Any", None),
        principal=Principal(subject="alice"),
        session_id="s-1",
        streaming=False,
        version="1",
    )

    await calls.notified(McpMessage(method="notifications/cancelled", id=None, params={"requestId": 9}))

    assert runs.cancelled == cancelled
