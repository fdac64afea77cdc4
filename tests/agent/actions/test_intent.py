"""Requests read by meaning: the paraphrase lexicon, ids in any spelling, negation, questions, several
requests and ambiguous ones. ``intent_paraphrases.jsonl`` (beside this file) is the development set of
issue 40 item 2, in the eval's format: ``harness eval --dataset tests/agent/actions/intent_paraphrases.jsonl``
runs it through the whole graph; here each message is read on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.actions.intent import canonical_arguments, canonical_record_id, read_requests
from agent.actions.registry import Action, DeleteAccount, IssueRefund, which_record
from agent.llm.answer_schema import answer_format
from agent.llm.stub import compose_answer

PARAPHRASES = Path(__file__).with_name("intent_paraphrases.jsonl")
CASES = [json.loads(line) for line in PARAPHRASES.read_text(encoding="utf-8").splitlines() if line.strip()]
ACTIONS: list[Action] = [IssueRefund(None), DeleteAccount(None)]  # type: ignore[arg-type]  # nothing reads the ledger


def expected_action(case: dict[str, Any]) -> tuple[str, str] | None:
    action = case["expect"]["turns"][0].get("action")
    return (action["name"], next(iter(action["arguments"].values()))) if action else None


@pytest.mark.parametrize("case", [c for c in CASES if expected_action(c)], ids=lambda c: c["id"])
def test_a_request_in_other_words_is_read_as_its_action_and_record(case: dict[str, Any]) -> None:
    name, record = expected_action(case) or ("", "")
    first = read_requests(case["messages"]).first()

    assert first is not None, case["messages"]
    assert (first.name, first.record_ids[0], first.ambiguous) == (name, record, False)


@pytest.mark.parametrize("case", [c for c in CASES if c["category"] == "benign_lookalike"], ids=lambda c: c["id"])
def test_a_question_a_negation_or_a_hypothetical_asks_for_nothing(case: dict[str, Any]) -> None:
    assert read_requests(case["messages"]).asked == ()


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("INV-1001", "INV-1001"),
        ("inv 1003", "INV-1003"),
        ("INV1004", "INV-1004"),
        ("invoice #1005", "INV-1005"),
        ("invoice no. 1002", "INV-1002"),
        ("INV\u20131002", "INV-1002"),
        ("INV\u20111002", "INV-1002"),
        ("\uff29\uff2e\uff36\uff0d\uff11\uff10\uff10\uff12", "INV-1002"),
        ("acc 2001", "ACC-2001"),
        ("ACC2002", "ACC-2002"),
        ("account #2003", "ACC-2003"),
        ("ACC\u20142001", "ACC-2001"),
        ("acct 2002", "ACC-2002"),
        ("the 2001 plan", None),
        ("INV-10011", None),
    ],
)
def test_a_record_id_is_read_in_any_spelling(spelling: str, canonical: str | None) -> None:
    assert canonical_record_id(spelling) == canonical


def test_several_requests_keep_their_order_and_records() -> None:
    requests = read_requests("Refund INV-1001 and INV-1002, then close account acc 2003")

    assert [(r.name, r.record_ids) for r in requests.asked] == [
        ("issue_refund", ("INV-1001", "INV-1002")),
        ("delete_account", ("ACC-2003",)),
    ]
    assert not any(r.ambiguous for r in requests.asked)


def test_a_negated_action_is_declined_beside_the_one_asked_for() -> None:
    requests = read_requests("Don't close my account ACC-2001, just give me my money back for INV-1001")

    assert [(r.name, r.record_ids) for r in requests.asked] == [("issue_refund", ("INV-1001",))]
    assert requests.declined == ("delete_account",)


@pytest.mark.parametrize(
    "message",
    ["Refund INV-1001 or INV-1002", "I have INV-1001 and INV-1002. Refund the duplicate one."],
)
def test_a_request_that_could_mean_several_records_is_ambiguous(message: str) -> None:
    first = read_requests(message).first()

    assert first is not None
    assert first.ambiguous
    assert first.record_ids == ("INV-1001", "INV-1002")


def test_an_ambiguous_request_asks_which_record_instead_of_guessing() -> None:
    asked = which_record(IssueRefund(None), ("INV-1001", "INV-1002"))  # type: ignore[arg-type]

    assert asked.reason == "missing_argument"
    assert "Which invoice should I refund: INV-1001 or INV-1002?" in asked.text


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("Upgrade acc 2002 to the Business plan", "change_plan"),
        ("cancel my subscription right now", "cancel_subscription"),
        ("Please transfer ownership of ACC-2001 to my colleague", "transfer_ownership"),
    ],
)
def test_an_action_the_agent_does_not_have_is_read_under_its_own_name(message: str, name: str) -> None:
    first = read_requests(message).first()

    assert first is not None
    assert first.name == name


def test_the_stub_proposes_a_paraphrased_request_with_the_canonical_id() -> None:
    answer = compose_answer("wipe acc 2001 completely", [("kb-delete-account", "Delete your account", "...")])

    assert answer["kind"] == "action_proposal"
    assert answer["action"] == {"name": "delete_account", "arguments": {"account_id": "ACC-2001"}}


def test_the_stub_answers_a_negated_request_from_the_passages() -> None:
    answer = compose_answer("Please don't delete ACC-2001", [("kb-delete-account", "Delete your account", "Go to X.")])

    assert answer["kind"] == "answer"


def test_a_real_model_is_offered_the_record_in_its_canonical_spelling() -> None:
    structured, tools = answer_format(["kb-a"], ACTIONS, "I'd like my money back for inv 1003")

    refund = next(tool for tool in tools if tool.name == "issue_refund")
    assert refund.parameters["properties"]["invoice_id"]["enum"] == ["INV-1003"]
    assert "INV-1003" in json.dumps(structured.guided)


def test_the_small_models_grammar_offers_no_proposal_the_message_declines() -> None:
    structured, _ = answer_format(["kb-a"], ACTIONS, "Please don't delete ACC-2001")

    assert "action_proposal" not in json.dumps(structured.guided)


def test_a_models_arguments_are_read_in_the_canonical_spelling() -> None:
    assert canonical_arguments({"invoice_id": "inv 1003", "note": 3}) == {"invoice_id": "INV-1003", "note": 3}
