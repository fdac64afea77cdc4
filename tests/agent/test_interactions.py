from __future__ import annotations

from typing import TYPE_CHECKING

from agent import run_turn
from agent.guardrails import redact
from agent.interactions import SqliteInteractionLog

if TYPE_CHECKING:
    from pathlib import Path

    from agent import Agent


def test_redact_removes_cards_ids_accounts_and_keys_but_keeps_the_rest() -> None:
    text = "Card 4111 1111 1111 1111, SSN 123-45-6789, IBAN DE89 3704 0044 0532 0130 00, key sk-abcdefghijklmnopqrstu"
    assert redact(text + ", INV-1001") == (
        "Card [REDACTED CARD], SSN [REDACTED ID], IBAN [REDACTED ACCOUNT], key [REDACTED KEY], INV-1001"
    )


async def test_a_turn_is_logged_once_and_redacted(agent: Agent, tmp_path: Path) -> None:
    message = "My card is 4111 1111 1111 1111, please charge it"
    response = await run_turn(agent, message, session_id="s_1", run_id="r_1")
    log = SqliteInteractionLog(tmp_path / "interactions.sqlite")
    try:
        first = await log.record("int_1", message, response, "2026-11-30T00:00:00.000000Z")
        second = await log.record("int_2", message, response, "2026-11-30T00:00:01.000000Z")
        stored = await log.messages()
    finally:
        log.close()

    assert response.status == "refused"
    assert first == second == "int_1"
    assert stored == [("r_1", "My card is [REDACTED CARD], please charge it")]
