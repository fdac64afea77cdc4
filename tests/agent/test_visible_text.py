from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.llm.visible_text import VisibleText


def shown(pieces: list[str]) -> str:
    extractor = VisibleText()
    return "".join(extractor.feed(piece) for piece in pieces)


def split_at(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def test_only_the_text_value_is_shown() -> None:
    raw = '{"kind": "answer", "text": "Open Settings \\u2192 Security.", "citations": ["kb-a"]}'
    assert shown(list(raw)) == "Open Settings → Security."


def test_keys_in_any_order_and_nested_values_are_skipped() -> None:
    raw = '{"action": {"name": "x", "text": "not me", "arguments": {"a": [1, "}"]}}, "kind": "a", "text": "me"}'
    assert shown([raw]) == "me"


def test_escapes_split_across_pieces() -> None:
    assert shown(['{"text": "a\\', "nb \\u00", "e9 \\ud83d", "\\ude00", ' \\"q\\""}']) == 'a\nb é 😀 "q"'


def test_plain_text_is_shown_as_written_without_trailing_whitespace() -> None:
    assert shown(["  Hello", " world", "  \n"]) == "Hello world"


def test_code_fences_around_json_are_ignored() -> None:
    assert shown(['```json\n{"kind": "answer", ', '"text": "hi"}\n```']) == "hi"


def test_a_lone_surrogate_becomes_a_replacement_character() -> None:
    assert shown(['{"text": "a\\ud800b"}']) == "a\ufffdb"


answers = st.fixed_dictionaries(
    {"kind": st.sampled_from(["answer", "no_answer"]), "text": st.text()},
    optional={
        "citations": st.lists(st.text(max_size=10), max_size=3),
        "extra": st.recursive(
            st.none() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=5
        ),
    },
)


@settings(max_examples=300)
@given(
    answer=answers,
    cuts=st.lists(st.integers(min_value=0), max_size=30),
    ensure_ascii=st.booleans(),
    indent=st.sampled_from([None, 2]),
)
def test_any_split_of_a_valid_answer_shows_exactly_its_text(
    answer: dict[str, object], cuts: list[int], ensure_ascii: bool, indent: int | None
) -> None:
    keys = list(answer)
    raw = json.dumps({k: answer[k] for k in reversed(keys)}, ensure_ascii=ensure_ascii, indent=indent)
    assert shown(split_at(raw, cuts)) == answer["text"]


@pytest.mark.parametrize("raw", ['{"kind": "answer"}', '{"text": 5}'])
def test_json_without_a_text_string_shows_nothing(raw: str) -> None:
    assert shown([raw]) == ""


def test_the_text_of_a_proposal_is_held_when_its_kind_comes_first() -> None:
    extractor = VisibleText()
    raw = '{"kind": "action_proposal", "text": "I can refund INV-1001.", "action": {"name": "issue_refund"}}'

    assert "".join(extractor.feed(c) for c in raw) == ""
    assert "".join(extractor.withheld) == "I can refund INV-1001."


def test_an_answer_streams_and_a_kind_after_the_text_holds_nothing() -> None:
    assert shown(list('{"kind": "answer", "text": "Open Settings."}')) == "Open Settings."
    assert shown(['{"text": "Shown as it comes.", "kind": "action_proposal"}']) == "Shown as it comes."
