"""What enters the graph: the verdict is reached on the message as sent, the graph gets only what may be
stored."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pytest
from langgraph.types import Command

from agent import intake
from agent.guardrails import InputVerdict
from agent.intake import admit, admit_decision, admit_message, message_text

if TYPE_CHECKING:
    from agent import Agent
    from agent.guardrails.model_check import ModelCheckOutcome
    from agent.state import PrincipalState


async def test_an_allowed_message_enters_as_it_was_sent(agent: Agent) -> None:
    turn = await admit_message(agent.deps, "How do I reset my password?", run_id="r_1", session_id="s_1")

    assert turn == {
        "run_id": "r_1",
        "session_id": "s_1",
        "message": {
            "text": "How do I reset my password?",
            "screen": {"allowed": True, "reason": None, "rule": None, "layer": None, "model_check": None},
        },
        "principal": {"subject": None, "account_id": None},
    }


async def test_the_asker_enters_with_the_message(agent: Agent) -> None:
    asker: PrincipalState = {"subject": "alice", "account_id": "ACC-2001"}
    turn = await admit_message(agent.deps, "Delete my account.", run_id="r_1", session_id="s_1", principal=asker)

    assert turn["principal"] == asker


async def test_a_refused_message_enters_as_a_placeholder_naming_the_reason(agent: Agent) -> None:
    turn = await admit_message(agent.deps, "My IBAN is DE89 3704 0044 0532 0130 00", run_id="r_1", session_id="s_1")

    assert turn["message"] == {
        "text": "[message refused: pii_bank_account]",
        "screen": {
            "allowed": False,
            "reason": "pii_bank_account",
            "rule": "bank_account",
            "layer": "rules",
            "model_check": None,
        },
    }


async def test_the_model_check_sees_only_the_redacted_text(agent: Agent, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    class Screen:
        model = "m"

        async def screen(self, message: str) -> tuple[InputVerdict, ModelCheckOutcome]:
            seen.append(message)
            return InputVerdict(allowed=True), "allowed"

    # rules that miss the card: the model check, and the graph, still get it masked
    monkeypatch.setattr(intake, "check_input", lambda message: InputVerdict(allowed=True))
    deps = dataclasses.replace(agent.deps, llm=Screen())  # type: ignore[arg-type]
    turn = await admit_message(deps, "My card is 4111 1111 1111 1111", run_id="r_1", session_id="s_1")

    assert turn["message"]["text"] == "My card is [REDACTED CARD]"
    assert turn["message"]["screen"]["model_check"] == "allowed"
    assert seen == ["My card is [REDACTED CARD]"]


async def test_a_decision_enters_with_its_comment_redacted(agent: Agent) -> None:
    decision = {"approval_id": "apv_1", "decision": "reject", "comment": "Paid by 4111 1111 1111 1111"}

    resume = await admit(agent.deps, decision, resume=True)

    assert isinstance(resume, Command)
    assert resume.resume == {"approval_id": "apv_1", "decision": "reject", "comment": "Paid by [REDACTED CARD]"}
    assert admit_decision("apv_1", "approve", None)["comment"] is None


def test_the_message_text_of_a_state_written_before_it_was_screened_is_redacted() -> None:
    assert message_text({"message": "Card 4111 1111 1111 1111"}) == "Card [REDACTED CARD]"  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("comment", "entered"),
    [
        ("Paid by 4111\u200b1111\u200b1111\u200b1111", "Paid by [REDACTED CARD]"),
        ("Paid by 4111/1111/1111/1111 and 4111_1111_1111_1111", "Paid by [REDACTED CARD] and [REDACTED CARD]"),
        ("Refund to de89-3704-0044-0532-0130-00", "Refund to [REDACTED ACCOUNT]"),
        ("SSN 078\u200d05\u200d1120 checked", "SSN [REDACTED ID] checked"),
    ],
)
def test_a_comment_is_masked_whatever_the_separators_case_or_invisible_characters(comment: str, entered: str) -> None:
    assert admit_decision("apv_1", "approve", comment) == {
        "approval_id": "apv_1",
        "decision": "approve",
        "comment": entered,
    }


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("Card 4111,1111,1111,1111 please", "pii_payment_card"),
        ("SSN 078\u200b05\u200b1120", "pii_national_id"),
        ("IBAN de89 3704 0044 0532 0130 00", "pii_bank_account"),
    ],
)
async def test_a_message_with_a_number_written_any_way_enters_as_a_placeholder(
    agent: Agent, message: str, reason: str
) -> None:
    turn = await admit_message(agent.deps, message, run_id="r_1", session_id="s_1")

    assert turn["message"]["text"] == f"[message refused: {reason}]"
    assert turn["message"]["screen"]["reason"] == reason


@pytest.mark.parametrize(
    "graph_input",
    [
        {"messages": [{"role": ["user"], "content": "How do I reset my password?"}]},
        {"messages": [{"type": {"human": 1}, "content": "How do I reset my password?"}]},
    ],
)
def test_a_message_whose_role_is_no_name_carries_no_turn(graph_input: dict[str, object]) -> None:
    assert intake.support_message(graph_input) is None


@pytest.mark.parametrize("decision", [["approve"], {"approve": True}, 1])
def test_a_decision_that_is_no_name_is_no_decision(decision: object) -> None:
    assert intake.support_decision({"decision": decision}) is None
