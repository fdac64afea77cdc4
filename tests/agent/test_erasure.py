"""What the agent tells the service to forget (``deleted_account``), which ids are personal data
(``carries_personal_data``), and the interaction log forgetting turns by run, by session and by age."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from agent import resume_turn, run_turn
from agent.erasure import deleted_account
from agent.intake import carries_personal_data
from agent.interactions import SqliteInteractionLog
from agent.turns import thread_config

if TYPE_CHECKING:
    from pathlib import Path

    from agent import Agent


@pytest.mark.parametrize(
    "text",
    ["4111111111111111", "4111-1111-1111-1111", "123-45-6789", "DE89370400440532013000", "sk-proj-abcdefghijklmnop0"],
)
def test_ids_shaped_like_a_card_a_national_id_an_iban_or_a_key_carry_personal_data(text: str) -> None:
    assert carries_personal_data(text)


@pytest.mark.parametrize("text", ["s_4f9c2a7d1e3b4c5a", "r_0001", "4111111111111112", "my-session-2026", "ACC-2001"])
def test_ordinary_ids_do_not(text: str) -> None:
    assert not carries_personal_data(text)


async def state_after(agent: Agent, session_id: str, decision: str) -> dict[str, Any]:
    paused = await run_turn(agent, "Please delete account ACC-2002.", session_id=session_id, run_id=f"r_{session_id}")
    assert paused.pending_approval is not None
    await resume_turn(
        agent,
        session_id=session_id,
        approval_id=paused.pending_approval.approval_id,
        decision=decision,  # type: ignore[arg-type]
    )
    values: dict[str, Any] = (await agent.graph.aget_state(thread_config(session_id))).values
    return values


async def test_an_approved_deletion_carried_out_names_its_account(agent: Agent) -> None:
    assert deleted_account(await state_after(agent, "s_approve", "approve")) == "ACC-2002"  # type: ignore[arg-type]


async def test_a_rejected_deletion_names_none(agent: Agent) -> None:
    assert deleted_account(await state_after(agent, "s_reject", "reject")) is None  # type: ignore[arg-type]


async def test_a_deletion_of_an_earlier_turn_names_none_in_the_next(agent: Agent) -> None:
    await state_after(agent, "s_later", "approve")
    await run_turn(agent, "How do I reset my password?", session_id="s_later", run_id="r_next")
    values = (await agent.graph.aget_state(thread_config("s_later"))).values

    assert deleted_account(values) is None


async def test_the_interaction_log_forgets_by_run_by_session_and_by_age(agent: Agent, tmp_path: Path) -> None:
    response = await run_turn(agent, "How do I reset my password?", session_id="s_1", run_id="r_1")
    log = SqliteInteractionLog(tmp_path / "interactions.sqlite")
    try:
        for index, (run_id, session_id) in enumerate([("r_1", "s_1"), ("r_2", "s_1"), ("r_3", "s_2"), ("r_4", "s_3")]):
            turn = msgspec.structs.replace(response, run_id=run_id, session_id=session_id)
            await log.record(
                f"int_{index}", "How do I reset my password?", turn, f"2026-11-0{index + 1}T00:00:00.000000Z"
            )
        by_run = await log.erase(run_ids=["r_3"])
        by_session = await log.erase(session_ids=["s_1"])
        by_age = await log.purge("2026-11-05T00:00:00.000000Z", 10)
        await log.compact()
        left = await log.messages()
    finally:
        log.close()

    assert (by_run, by_session, by_age, left) == (1, 2, 1, [])
