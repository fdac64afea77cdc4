"""The local model's part of the sealed set: the first N cases of each category, by a rule that reads no result."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from agent.evaluation.dataset import load_dataset
from agent.evaluation.subset import first_per_category, main

if TYPE_CHECKING:
    from pathlib import Path

from tests.agent.evaluation.test_heldout_sealed import SEALED


def test_the_first_cases_of_each_category_in_file_order() -> None:
    lines = [json.dumps({"id": f"c{i}", "category": category}) for i, category in enumerate("aabacbbc")]

    chosen = [json.loads(line)["id"] for line in first_per_category(lines, 2)]

    assert chosen == ["c0", "c1", "c2", "c4", "c5", "c7"]


def test_the_local_part_keeps_every_category_and_status(tmp_path: Path) -> None:
    target = tmp_path / "part.jsonl"

    assert main(["--per-category", "3", str(SEALED), str(target)]) == 0

    part, whole = load_dataset(target), load_dataset(SEALED)
    assert len(part) == 33
    assert {case.category for case in part} == {case.category for case in whole}
    statuses = {turn.status for case in part for turn in case.expect.turns or ()}
    assert statuses == {"completed", "refused", "paused", "rejected"}


def test_a_bad_dataset_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text('{"id": "x"}\n', encoding="utf-8")

    assert main(["--per-category", "1", str(source), str(tmp_path / "out.jsonl")]) == 2
    assert not (tmp_path / "out.jsonl").exists()
