"""Identity on: a thread, its state and its runs exist for the subject who created it, and for nobody else."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError, AuthenticationError, NotFoundError

from tests.e2e.agent_protocol.turns import ALICE, BOB, REFUND, collect

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from tests.e2e.conftest import LiveServer


async def test_another_subjects_thread_is_not_found(guarded: LiveServer) -> None:
    async with (
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {ALICE}"}, timeout=30) as alice,
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {BOB}"}, timeout=30) as bob,
    ):
        thread = await alice.threads.create(metadata={"owner": "alice"})
        thread_id = thread["thread_id"]
        paused = await collect(alice.runs.stream(thread_id, "react_agent", input=REFUND))
        run_id = paused[0].data["run_id"]

        attempts: dict[str, Callable[[], Awaitable[object]]] = {
            "get": lambda: bob.threads.get(thread_id),
            "state": lambda: bob.threads.get_state(thread_id),
            "runs": lambda: bob.runs.list(thread_id),
            "run": lambda: bob.runs.get(thread_id, run_id),
            "join": lambda: collect(bob.runs.join_stream(thread_id, run_id)),
            "resume": lambda: collect(
                bob.runs.stream(thread_id, "react_agent", command={"resume": {"decision": "approve"}})
            ),
            "cancel": lambda: bob.runs.cancel(thread_id, run_id),
            "delete": lambda: bob.threads.delete(thread_id),
        }
        answered: dict[str, object] = {}
        for name, attempt in attempts.items():
            try:
                answered[name] = await attempt()
            except APIStatusError as refused:
                answered[name] = refused.status_code

        assert answered == dict.fromkeys(attempts, 404)
        assert await bob.threads.search(metadata={"owner": "alice"}) == []
        assert [found["thread_id"] for found in await alice.threads.search(metadata={"owner": "alice"})] == [thread_id]
        still = await alice.threads.get(thread_id)
        assert still["status"] == "interrupted", "nothing bob tried touched alice's run"


async def test_a_thread_id_taken_by_another_subject_is_not_theirs_to_create(guarded: LiveServer) -> None:
    async with (
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {ALICE}"}, timeout=30) as alice,
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {BOB}"}, timeout=30) as bob,
    ):
        thread = await alice.threads.create(metadata={"owner": "alice"})

        with pytest.raises(NotFoundError):
            await bob.threads.create(thread_id=thread["thread_id"], if_exists="do_nothing")
        with pytest.raises(NotFoundError):
            await collect(bob.runs.stream(thread["thread_id"], "react_agent", input=REFUND, if_not_exists="create"))

        assert (await alice.runs.list(thread["thread_id"])) == []


async def test_without_a_token_the_sdk_gets_a_401(guarded: LiveServer) -> None:
    async with get_client(url=guarded.url, timeout=30) as anonymous:
        with pytest.raises(AuthenticationError) as refused:
            await anonymous.threads.create()

    assert refused.value.code == "token_missing"
