"""A dataset for any graph, JSONL or YAML, validated whole before anything runs: each problem with its
place, case id and field."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from agent.evaluation.dataset import HELDOUT_DATASET, DatasetError, load_dataset, load_graph_dataset
from agent.evaluation.graph_cases import GraphCase

if TYPE_CHECKING:
    from pathlib import Path

EXAMPLE = "examples/react_agent/eval.yaml"


def test_the_react_example_dataset_is_valid_yaml() -> None:
    from pathlib import Path

    cases = load_graph_dataset(Path(EXAMPLE))

    assert [case.id for case in cases] == ["lookup-order", "refund-approved", "refund-rejected", "no-order-id"]
    approved = cases[1]
    assert approved.resume == ["approve"]
    assert approved.first_input() == {
        "messages": [{"role": "user", "content": "Please refund order A-1001, it arrived torn."}]
    }


def test_one_format_for_every_graph_with_turns_only_for_the_support_agent() -> None:
    from pathlib import Path

    support = load_dataset(HELDOUT_DATASET)

    assert len(support) == 126
    assert all(isinstance(case, GraphCase) and case.expect.turns for case in support)
    with pytest.raises(DatasetError, match=r"'password-requirements': expect\.turns: only the support agent's"):
        load_graph_dataset(HELDOUT_DATASET)
    with pytest.raises(DatasetError, match=r"case 'lookup-order': expect\.turns: the support agent's cases say"):
        load_dataset(Path(EXAMPLE))


def test_every_problem_names_its_line_case_and_field(tmp_path: Path) -> None:
    lines = [
        {"id": "ok", "messages": "hi", "expect": {"interrupts": 0}},
        {"id": "both", "messages": "hi", "input": {"topic": "x"}},
        {"id": "typo", "messages": "hi", "expect": {"trajectory": {"nodes": ["a"], "match": "exact"}}},
        {"id": "tools", "messages": "hi", "expect": {"tools": [{"nme": "x"}]}},
        {"id": "regex", "messages": "hi", "expect": {"state_regex": {"answer": "("}}},
        {"id": "schema", "messages": "hi", "expect": {"state_schema": {"answer": {"type": "strin"}}}},
        {"id": "range", "messages": "hi", "expect": {"state_range": {"n": {"min": 3, "max": 1}}}},
        {"id": "path", "messages": "hi", "expect": {"state": {"a..b": 1}}},
        {"id": "scorer", "messages": "hi", "expect": {"scorers": ["no_such_module_anywhere:f"]}},
        {"id": "ok", "messages": "hi"},
        {"id": "Bad Id", "messages": "hi"},
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")

    with pytest.raises(DatasetError) as raised:
        load_graph_dataset(path)

    message = str(raised.value)
    for expected in (
        f"{path}:2: case 'both': a case needs exactly one of 'input' or 'messages'",
        f"{path}:3: case 'typo': expect.trajectory.match: Invalid enum value 'exact'",
        f"{path}:4: case 'tools': expect.tools[0]: Object contains unknown field `nme`",
        f"{path}:5: case 'regex': expect.state_regex.answer: not a regular expression",
        f"{path}:6: case 'schema': expect.state_schema.answer: not a valid JSON schema",
        f"{path}:7: case 'range': expect.state_range.n: min 3.0 is above max 1.0",
        f"{path}:8: case 'path': expect.state.a..b: path 'a..b' has an empty part",
        f"{path}:9: case 'scorer': expect.scorers[0]: cannot import no_such_module_anywhere",
        f"{path}:10: case 'ok': id is already used at {path}:1",
        f"{path}:11: case 'Bad Id': id: Expected `str` matching regex",
    ):
        assert expected in message
    assert f"{path}:1:" not in message.replace(f"at {path}:1", "")


def test_a_yaml_dataset_names_each_case_by_its_position(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text("- id: a\n  messages: hi\n- id: b\n  input: 3\n  expect: {interrupts: -1}\n", encoding="utf-8")

    with pytest.raises(DatasetError, match=r"cases.yaml#2: case 'b': expect.interrupts: cannot be negative"):
        load_graph_dataset(path)
    path.write_text("cases: {a: 1}\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="a YAML dataset is a list of cases"):
        load_graph_dataset(path)
    path.write_text("- [unclosed\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="not YAML"):
        load_graph_dataset(path)


def test_a_judge_needs_a_registered_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.evaluation import scorers

    monkeypatch.setattr(scorers, "_LAZY", {"judge": "no_such_judge_module"})
    monkeypatch.setattr(scorers, "_REGISTRY", {k: v for k, v in scorers._REGISTRY.items() if k != "judge"})
    path = tmp_path / "judge.jsonl"
    path.write_text(json.dumps({"id": "j", "messages": "hi", "expect": {"judge": {"rubric": "x"}}}) + "\n")

    with pytest.raises(DatasetError, match=r"expect\.judge: no judge scorer is registered"):
        load_graph_dataset(path)
