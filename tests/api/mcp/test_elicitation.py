"""An elicitation's answer resumes or cancels its run only where the request's threads show the run's thread: a
thread langgraph.json's auth filter hides is not found for an answer either."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from api.auth import Principal
from api.mcp.elicitation import ELICITATION_PREFIX, answer_elicitation


class _Threads:
    def __init__(self, *, hidden: bool) -> None:
        self.hidden = hidden

    async def hides(self, thread_id: str) -> bool:
        assert thread_id == "t-1"
        return self.hidden


class _Runs:
    def __init__(self) -> None:
        self.cancelled: list[str] = []

    async def get(self, run_id: str, principal: Principal) -> Any:
        snapshot = SimpleNamespace(session_id="t-1")
        return SimpleNamespace(
            run_id=run_id, record=SimpleNamespace(snapshot=snapshot, graph=SimpleNamespace(graph_id="g"))
        )

    async def cancel(self, found: Any, principal: Principal) -> None:
        self.cancelled.append(found.run_id)


@pytest.mark.parametrize(("hidden", "cancelled"), [(False, ["r-1"]), (True, [])])
async def test_an_answer_reaches_the_run_of_a_thread_the_request_may_see(hidden: bool, cancelled: list[str]) -> None:
    runs = _Runs()

    await answer_elicitation(
        cast("Any", runs),
        cast("Any", _Threads(hidden=hidden)),
        cast("Any", {"g": object()}),
        Principal(subject="alice"),
        call_id=f"{ELICITATION_PREFIX}t-1:r-1:a-1",
        result={"action": "cancel"},
        modes=("values",),
    )

    assert runs.cancelled == cancelled
