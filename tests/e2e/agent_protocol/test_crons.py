"""A cron belongs to the subject that made it: another subject finds nothing (absent from search and count, 404 to
change or delete), and cannot put a cron on a thread that is not theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import NotFoundError

from tests.e2e.agent_protocol.turns import ALICE, BOB

if TYPE_CHECKING:
    from tests.e2e.conftest import LiveServer

YEARLY = "0 0 1 1 *"


async def test_another_subjects_cron_is_not_there(guarded: LiveServer) -> None:
    async with (
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {ALICE}"}) as alice,
        get_client(url=guarded.url, headers={"Authorization": f"Bearer {BOB}"}) as bob,
    ):
        thread_id = (await alice.threads.create())["thread_id"]
        cron: Any = await alice.crons.create_for_thread(thread_id, "react_agent", schedule=YEARLY)
        assert cron["user_id"] == "alice"
        assert await bob.crons.search() == []
        assert await bob.crons.count() == 0
        with pytest.raises(NotFoundError):
            await bob.crons.update(cron["cron_id"], enabled=False)
        with pytest.raises(NotFoundError):
            await bob.crons.delete(cron["cron_id"])
        with pytest.raises(NotFoundError):
            await bob.crons.create_for_thread(thread_id, "react_agent", schedule=YEARLY)
        assert [found["cron_id"] for found in await alice.crons.search()] == [cron["cron_id"]]
        assert (await alice.crons.search())[0]["enabled"] is True, "bob's update changed nothing"
