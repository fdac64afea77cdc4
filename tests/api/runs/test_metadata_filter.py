"""Filters on metadata as the Agent Server's authorization handlers return them: equality, ``$eq``, ``$contains``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from api.runs.metadata_filter import checked_filter, matches

METADATA = {"owner": "alice", "team": "red", "tags": ["a", "b"], "level": 2}


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (None, True),
        ({}, True),
        ({"owner": "alice"}, True),
        ({"owner": "bob"}, False),
        ({"owner": {"$eq": "alice"}, "team": "red"}, True),
        ({"owner": "alice", "team": "blue"}, False),
        ({"missing": "x"}, False),
        ({"level": 2}, True),
        ({"tags": {"$contains": "a"}}, True),
        ({"tags": {"$contains": ["b", "a"]}}, True),
        ({"tags": {"$contains": ["a", "c"]}}, False),
        ({"owner": {"$contains": "a"}}, False),
    ],
)
def test_every_key_must_hold(where: dict[str, Any] | None, expected: bool) -> None:
    assert matches(METADATA, where) is expected


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (["owner"], "a filter is a dict"),
        ({1: "x"}, "keys are strings"),
        ({"owner": {"$gt": 1}}, "one operator of $eq and $contains"),
        ({"owner": {"$eq": "a", "$contains": "b"}}, "one operator"),
    ],
)
def test_a_filter_of_another_shape_is_refused(given: object, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        checked_filter(given)
