"""The dataset schema: the bundled dataset loads, and a bad line says what is wrong and where."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from agent.evaluation.dataset import (
    BUNDLED_DATASETS,
    DEV_DATASET,
    HELDOUT_DATASET,
    Case,
    DatasetError,
    ExpectedAction,
    load_dataset,
    resolve_dataset,
)
from agent.knowledge import load_bundled_corpus
from tests.agent.evaluation.conftest import SMALL_DATASET, write_dataset

if TYPE_CHECKING:
    from pathlib import Path

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
    turns = [turn for case in cases for turn in case.turns]
    assert any(t.resume == "approve" for t in turns)
    assert any(t.resume == "reject" for t in turns)
    assert any(sum(t.message is not None for t in case.turns) >= 2 for case in cases), "a two-message session"
    assert any(isinstance(t.expect.action, ExpectedAction) and t.expect.action.arguments for t in turns)
    out_of_scope = [case for case in cases if case.category == "out_of_scope"]
    assert all(
        c.turns[0].expect.answer_kind == "no_answer" and c.turns[0].expect.status == "completed" for c in out_of_scope
    )
    answerable = [case for case in cases if case.category in ("answerable", "paraphrase", "typo")]
    assert all(case.turns[0].expect.doc_ids for case in answerable)


@pytest.mark.parametrize("path", [DEV_DATASET, HELDOUT_DATASET], ids=["dev", "heldout"])
def test_the_bundled_parts_are_canonical_jsonl(path: Path) -> None:
    """One compact object per line, so a diff of the dataset shows exactly the cases that changed."""
    for line in path.read_text(encoding="utf-8").splitlines():
        assert line == json.dumps(json.loads(line), ensure_ascii=False)


def test_the_held_out_part_shares_no_case_and_no_message_with_the_development_part() -> None:
    dev, held = load_dataset(DEV_DATASET), load_dataset(HELDOUT_DATASET)

    def questions(cases: list[Case]) -> set[str | None]:
        # a multi-turn case may open with a plain question that is a case of its own in the other part
        return {case.turns[0].message for case in cases if len(case.turns) == 1}

    assert not {case.id for case in dev} & {case.id for case in held}
    assert not questions(dev) & questions(held)


def test_a_bundled_part_is_named_and_anything_else_is_a_path(tmp_path: Path) -> None:
    assert resolve_dataset("dev") == BUNDLED_DATASETS["dev"] == DEV_DATASET
    assert resolve_dataset("heldout") == HELDOUT_DATASET
    assert resolve_dataset(str(tmp_path / "mine.jsonl")) == tmp_path / "mine.jsonl"


def bad(tmp_path: Path, *cases: dict[str, Any]) -> str:
    path = write_dataset(tmp_path / "bad.jsonl", [SMALL_DATASET[0], *cases])
    with pytest.raises(DatasetError) as raised:
        load_dataset(path, known_doc_ids=CORPUS_IDS)
    return str(raised.value)


def message_turn(**expect: Any) -> dict[str, Any]:
    return {"message": "hello", "expect": {"status": "completed", **expect}}


@pytest.mark.parametrize(
    ("case", "complaint"),
    [
        (
            {"id": "x", "category": "answerable", "turns": [{"mesage": "hi", "expect": {"status": "completed"}}]},
            "turns[0]: Object contains unknown field `mesage`",
        ),
        ({"id": "x", "category": "answerable", "turns": [{"message": "hi"}]}, "missing required field `expect`"),
        ({"id": "x", "category": "answerable", "turns": [message_turn(status="done")]}, "Invalid enum value 'done'"),
        (
            {"id": "x", "category": "chitchat", "turns": [message_turn()]},
            "case 'x': category: Invalid enum value 'chitchat'",
        ),
        (
            {"id": "Bad Id", "category": "answerable", "turns": [message_turn()]},
            "case 'Bad Id': id: Expected `str` matching regex",
        ),
        ({"id": "x", "category": "answerable", "turns": []}, "length >= 1"),
        (
            {
                "id": "x",
                "category": "action",
                "turns": [{"message": "hi", "resume": "approve", "expect": {"status": "completed"}}],
            },
            "exactly one of 'message' or 'resume'",
        ),
        (
            {"id": "x", "category": "action", "turns": [{"resume": "approve", "expect": {"status": "completed"}}]},
            "turn 1 resumes, but the turn before it is not expected to pause",
        ),
        (
            {"id": "x", "category": "action", "turns": [message_turn(status="paused"), message_turn()]},
            "turn 2 must resume",
        ),
        (
            {"id": "x", "category": "action", "turns": [message_turn(action={"name": "issue_refund"})]},
            "status must be 'paused'",
        ),
        (
            {"id": "x", "category": "pii", "turns": [message_turn(refusal_reason="pii_payment_card")]},
            "refusal_reason only applies",
        ),
        (
            {"id": "x", "category": "answerable", "turns": [message_turn(doc_ids=["kb-pasword-reset"])]},
            "case 'x': expects unknown document(s) kb-pasword-reset",
        ),
        (
            {"id": "reset", "category": "answerable", "turns": [message_turn()]},
            "case 'reset': id is already used at ",
        ),
    ],
)
def test_a_bad_case_names_its_line_and_its_problem(tmp_path: Path, case: dict[str, Any], complaint: str) -> None:
    message = bad(tmp_path, case)

    assert f"{tmp_path / 'bad.jsonl'}:2: " in message
    assert complaint in message


def test_every_bad_line_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a"\n\n{"id": "b", "category": "answerable", "turns": []}\n', encoding="utf-8")

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
        tmp_path / "d.jsonl",
        [
            {"id": "a", "category": "action", "turns": [message_turn()]},
            {"id": "b", "category": "action", "turns": [message_turn(action=None)]},
        ],
    )

    first, second = load_dataset(path)

    assert first.turns[0].expect.action is msgspec.UNSET
    assert second.turns[0].expect.action is None
