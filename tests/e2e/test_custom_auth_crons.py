"""Crons under langgraph.json's ``auth.path`` in a real ``harness serve --config`` (the tests' own ``Auth``,
tests/e2e/custom_auth/auth.py), driven with langgraph-sdk: a cron cannot be put on a thread the thread filter hides
from its maker, a change that would take a cron out of its maker's cron filter is refused rather than hiding it
from them while it fires on, and a cron's runs get its maker's user as a run they started would.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from langgraph_sdk import get_client

from tests.e2e.test_custom_auth import ALICE, HELLO, PROJECT, env, status
from tests.support.harness_process import HarnessProcess

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

YEARLY = "0 0 1 1 *"
EVERY_SECOND = "* * * * * *"
PATIENCE_S = 40


async def test_a_crons_thread_its_metadata_and_its_runs_keep_to_the_custom_auth(tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        process = HarnessProcess({**env(tmp_path), "HARNESS_CRON_TICK_S": "0.1"}, args=["--config", str(PROJECT)])
        stack.callback(process.close)
        await process.start()
        alice: LangGraphClient = await stack.enter_async_context(get_client(url=process.url, headers=ALICE))
        shown = await alice.threads.create(metadata={"topic": "shown"})
        hidden = await alice.threads.create(metadata={"visibility": "hidden"})

        on_hidden = await status(alice.crons.create_for_thread(hidden["thread_id"], "echo", schedule=YEARLY))
        cron: Any = await alice.crons.create_for_thread(shown["thread_id"], "echo", schedule=EVERY_SECOND, input=HELLO)
        emptied = await status(alice.crons.update(cron["cron_id"], metadata={}))
        alice_crons = [found["cron_id"] for found in await alice.crons.search()]
        try:
            async with asyncio.timeout(PATIENCE_S):
                while "asked_by" not in (values := (await alice.threads.get_state(shown["thread_id"]))["values"]):
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise AssertionError("the cron's run did not end on its thread") from None
        await alice.crons.delete(cron["cron_id"])

    assert on_hidden == 404, "a thread the filter hides from alice is not one to put a cron on"
    assert emptied == 403, "metadata without what the cron filter reads would hide the cron from alice"
    assert alice_crons == [cron["cron_id"]]
    assert values["asked_by"] == "alice of team red", "the cron's run gets alice's user, as her own run would"


async def test_the_threads_of_a_crons_firings_carry_what_the_thread_handler_stamps(tmp_path: Path) -> None:
    """A cron without a thread makes one at each firing, when no request reaches the thread handler: the metadata
    the handler stamped for the request that made the cron is each firing thread's, so its maker finds the threads
    through the filter (owner, team, visibility) as her own threads."""
    async with AsyncExitStack() as stack:
        process = HarnessProcess({**env(tmp_path), "HARNESS_CRON_TICK_S": "0.1"}, args=["--config", str(PROJECT)])
        stack.callback(process.close)
        await process.start()
        alice: LangGraphClient = await stack.enter_async_context(get_client(url=process.url, headers=ALICE))
        cron: Any = await alice.crons.create("echo", schedule=EVERY_SECOND, input=HELLO, on_run_completed="keep")
        try:
            async with asyncio.timeout(PATIENCE_S):
                while not (threads := await alice.threads.search()):
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise AssertionError("no thread of the cron's firings is found through the thread filter") from None
        await alice.crons.delete(cron["cron_id"])

    metadata = threads[0]["metadata"]
    assert (metadata["owner"], metadata["team"], metadata["visibility"]) == ("alice", "red", "shown")
