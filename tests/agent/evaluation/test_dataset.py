"""The support agent's datasets: graph cases whose ``expect.turns`` say what each turn does; the bundled parts
load, and a bad line says what is wrong and where."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from agent.evaluation.dataset import (
    BUNDLED_DATASETS,
    DEV_DATASET,
    HELDOUT_DATASET,
    SEALED_DATASET,
    DatasetError,
    dataset_messages,
    load_dataset,
    resolve_dataset,
)
from agent.evaluation.support_cases import ExpectedAction, case_messages
from agent.intake import support_decision
from agent.knowledge import load_bundled_corpus
from tests.agent.evaluation.conftest import SMALL_DATASET, write_dataset

if TYPE_CHECKING:
    from pathlib import Path

    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.support_cases import TurnExpect

CORPUS_IDS = {doc.doc_id for doc in load_bundled_corpus()}


@pytest.mark.parametrize("path", [DEV_DATASET, HELDOUT_DATASET], ids=["dev", "heldout"])
def test_each_bundled_part_loads_and_covers_every_kind_of_case(path: Path) -> None:
    cases = load_dataset(path, known_doc_ids=CORPUS_IDS)

    assert len(cases) >= 100
    categories = {case.category for case in cases}
    assert categories >= {
        "answerable",
        "paraphrase",
        "typo",
        "prompt_injection",
        "secret_request",
        "pii",
        "action",
        "impossible_action",
        "benign_lookalike",
        "out_of_scope",
        "multi_turn",
    }
    adversarial = [case for case in cases if case.category in ("prompt_injection", "secret_request", "pii")]
    assert len(adversarial) >= 40
    decisions = {decided[0] for case in cases for value in case.resume if (decided := support_decision(value))}
    assert decisions == {"approve", "reject"}
    assert any(len(case_messages(case)) >= 2 for case in cases), "a two-message session"
    turns = [turn for case in cases for turn in expected(case)]
    assert any(isinstance(t.action, ExpectedAction) and t.action.arguments for t in turns)
    out_of_scope = [case for case in cases if case.category == "out_of_scope"]
    assert all(expected(c)[0].answer_kind == "no_answer" and expected(c)[0].status == "completed" for c in out_of_scope)
    answerable = [case for case in cases if case.category in ("answerable", "paraphrase", "typo")]
    assert all(expected(case)[0].doc_ids for case in answerable)


def expected(case: GraphCase) -> list[TurnExpect]:
    assert case.expect.turns is not None
    return case.expect.turns


@pytest.mark.parametrize("path", list(BUNDLED_DATASETS.values()), ids=list(BUNDLED_DATASETS))
def test_the_bundled_parts_are_canonical_jsonl(path: Path) -> None:
    """One compact object per line, so a diff of the dataset shows exactly the cases that changed."""
    for line in path.read_text(encoding="utf-8").splitlines():
        assert line == json.dumps(json.loads(line), ensure_ascii=False)


def test_the_held_out_part_shares_no_case_and_no_message_with_the_development_part() -> None:
    dev, held = load_dataset(DEV_DATASET), load_dataset(HELDOUT_DATASET)

    def questions(cases: list[GraphCase]) -> set[str]:
        # a multi-turn case may open with a plain question that is a case of its own in the other part
        return {case_messages(case)[0] for case in cases if len(expected(case)) == 1}

    assert not {case.id for case in dev} & {case.id for case in held}
    assert not questions(dev) & questions(held)


def test_the_messages_of_a_dataset_are_every_message_it_sends() -> None:
    messages = dataset_messages(SEALED_DATASET)

    assert len(messages) == sum(len(case_messages(case)) for case in load_dataset(SEALED_DATASET))
    assert len(messages) > len(load_dataset(SEALED_DATASET)), "the later messages of multi-turn cases count too"


def test_a_bundled_part_is_named_and_anything_else_is_a_path(tmp_path: Path) -> None:
    assert resolve_dataset("dev") == BUNDLED_DATASETS["dev"] == DEV_DATASET
    assert resolve_dataset("heldout") == HELDOUT_DATASET
    assert resolve_dataset(str(tmp_path / "mine.jsonl")) == tmp_path / "mine.jsonl"


def bad(tmp_path: Path, *cases: dict[str, Any]) -> str:
    path = write_dataset(tmp_path / "bad.jsonl", [SMALL_DATASET[0], *cases])
    with pytest.raises(DatasetError) as raised:
        load_dataset(path, known_doc_ids=CORPUS_IDS)
    return str(raised.value)


def one_turn(category: str = "answerable", message: str = "hello", **expect: Any) -> dict[str, Any]:
    return {
        "id": "x",
        "category": category,
        "messages": message,
        "expect": {"turns": [{"status": "completed", **expect}]},
    }


PAUSE = {"status": "paused", "action": {"name": "issue_refund", "arguments": {"invoice_id": "INV-1001"}}}


@pytest.mark.parametrize(
    ("case", "complaint"),
    [
        (
            {"id": "x", "category": "answerable", "messages": "hi", "expect": {"turns": [{"statu": "completed"}]}},
            "expect.turns[0]: Object contains unknown field `statu`",
        ),
        (
            {"id": "x", "category": "answerable", "messages": "hi"},
            "expect.turns: the support agent's cases say what each turn should do",
        ),
        (one_turn(status="done"), "Invalid enum value 'done'"),
        (one_turn(category="chitchat"), "case 'x': category: the support agent's cases name one of answerable"),
        ({**one_turn(), "id": "Bad Id"}, "case 'Bad Id': id: Expected `str` matching regex"),
        ({**one_turn(), "expect": {"turns": []}}, "length >= 1"),
        (
            {
                "id": "x",
                "category": "answerable",
                "input": {"text": "hi"},
                "expect": {"turns": [{"status": "completed"}]},
            },
            "input: no user message",
        ),
        (one_turn(message="x" * 4001), "messages: a message is 1 to 4000 characters, got 4001"),
        (
            {**one_turn(), "resume": [{"decision": "approve"}]},
            "resume: expect.turns answers 0 pause(s) (each turn after one expected to pause resumes it), but 1",
        ),
        (
            {**one_turn(), "expect": {"turns": [PAUSE, {"status": "completed"}]}, "then": ["and now?"]},
            "then: expect.turns sends 0 later message(s) (each turn not after an expected pause), but 1 are given",
        ),
        (
            {**one_turn(), "resume": ["approve"], "expect": {"turns": [PAUSE, {"status": "completed"}]}},
            "resume[0]: the support agent is resumed with {decision: approve | reject, comment: text}, got 'approve'",
        ),
        (
            {
                **one_turn(),
                "resume": [{"decision": "approve"}],
                "expect": {"turns": [PAUSE, {"status": "completed", "doc_ids": ["kb-password-reset"]}]},
            },
            "expect.turns[1]: a resume neither retrieves nor meets the input guardrail",
        ),
        (one_turn(action={"name": "issue_refund"}), "status must be 'paused'"),
        (one_turn(category="pii", refusal_reason="pii_payment_card"), "refusal_reason only applies"),
        (one_turn(doc_ids=["kb-pasword-reset"]), "case 'x': expects unknown document(s) kb-pasword-reset"),
        (
            {**one_turn(), "expect": {"turns": [{"status": "completed"}], "interrupts": 0}},
            "expect.interrupts: the support agent's cases are checked per turn (expect.turns), not with interrupts",
        ),
        ({**one_turn(), "id": "reset"}, "case 'reset': id is already used at "),
    ],
)
def test_a_bad_case_names_its_line_and_its_problem(tmp_path: Path, case: dict[str, Any], complaint: str) -> None:
    message = bad(tmp_path, case)

    assert f"{tmp_path / 'bad.jsonl'}:2: " in message
    assert complaint in message


def test_every_bad_line_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a"\n\n{"id": "b", "category": "answerable", "messages": "hi"}\n', encoding="utf-8")

    with pytest.raises(DatasetError) as raised:
        load_dataset(path)

    assert f"{path}:1: " in str(raised.value)
    assert f"{path}:3: " in str(raised.value)


def test_an_empty_or_missing_dataset_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="has no cases"):
        load_dataset(tmp_path / "empty.jsonl")
    with pytest.raises(DatasetError, match="cannot read the dataset"):
        load_dataset(tmp_path / "missing.jsonl")


def test_an_omitted_action_is_no_expectation_and_null_expects_none(tmp_path: Path) -> None:
    path = write_dataset(
        tmp_path / "d.jsonl", [{**one_turn("action"), "id": "a"}, {**one_turn("action", action=None), "id": "b"}]
    )

    first, second = load_dataset(path)

    assert expected(first)[0].action is msgspec.UNSET
    assert expected(second)[0].action is None


def test_a_case_id_may_be_as_long_as_the_longest_bundled_one(tmp_path: Path) -> None:
    longest = max(len(case.id) for path in BUNDLED_DATASETS.values() for case in load_dataset(path))
    path = write_dataset(tmp_path / "d.jsonl", [{**one_turn(), "id": "a" * 80}])

    assert longest <= 80
    assert [case.id for case in load_dataset(path)] == ["a" * 80]
