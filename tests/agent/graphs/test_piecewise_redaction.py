"""A personal number, key or password a model writes piece by piece never gets out, however the pieces fall."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk

from agent.graphs.message_chunks import ChunkRedactor
from agent.graphs.piecewise_redaction import PiecewiseRedactor
from agent.guardrails import redact
from tests.support.personal_numbers import PlantedNumber, carries, ordinary_texts, planted_in_text

SECRETS = [
    "my password is Tr0ub4dor&3 and nothing else",
    "use sk-proj-abcdefghijklmnopqrstuvwxyz012345 for the API",
    "the token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2ln please",
]


def pieces_of(text: str, cuts: list[int]) -> list[str]:
    points = sorted({cut % (len(text) + 1) for cut in cuts} | {0, len(text)})
    return [text[start:end] for start, end in itertools.pairwise(points)]


def let_out(pieces: list[str]) -> list[str]:
    redactor = PiecewiseRedactor()
    out = [redactor.feed("message", piece, last=index == len(pieces) - 1) for index, piece in enumerate(pieces)]
    assert redactor.holding == 0
    return out


@settings(max_examples=300, deadline=None)
@given(planted=planted_in_text(), cuts=st.lists(st.integers(min_value=0), max_size=40))
def test_a_number_split_anywhere_is_masked_as_a_whole_text_would_be(
    planted: tuple[str, PlantedNumber], cuts: list[int]
) -> None:
    text, number = planted

    out = let_out(pieces_of(text, cuts))

    assert not carries("".join(out), number)
    assert "".join(out) == redact(text)


@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(SECRETS), cuts=st.lists(st.integers(min_value=0), max_size=30))
def test_a_key_or_a_password_split_anywhere_is_masked(text: str, cuts: list[int]) -> None:
    out = let_out(pieces_of(text, cuts))

    assert "".join(out) == redact(text)
    assert not re.search(r"Tr0ub|abcdefghij|eyJzdWIi", "".join(out))


@settings(max_examples=100, deadline=None)
@given(text=ordinary_texts(), cuts=st.lists(st.integers(min_value=0), max_size=30))
def test_ordinary_text_comes_out_whole(text: str, cuts: list[int]) -> None:
    assert "".join(let_out(pieces_of(text, cuts))) == text


def test_prose_is_let_out_a_few_words_behind_and_a_number_once_it_cannot_grow() -> None:
    words = re.findall(r"\s*\S+", "The order A-1001 shipped yesterday. Your card 4111 1111 1111 1111 is stored here.")
    redactor = PiecewiseRedactor()

    out = [redactor.feed("message", word) for word in words]

    assert out == [
        "",
        "",
        "The order ",
        "",
        "A-1001 shipped ",
        "yesterday. ",
        *[""] * 7,
        "Your card [REDACTED CARD] is stored ",
    ]
    assert redactor.feed("message", "", last=True) == "here."


def test_a_line_break_ends_every_number_so_what_is_before_it_goes_out() -> None:
    redactor = PiecewiseRedactor()

    assert redactor.feed("message", "Total 42\n") == "Total 42\n"
    assert redactor.feed("message", "Card 4111") == ""


def test_streamed_tool_call_arguments_are_redacted_across_chunks() -> None:
    chunks = ChunkRedactor()
    arguments = ['{"card": "4111 ', "1111 1111 ", '1111", "amount": 5}']

    dumps = [
        chunks.dump(
            AIMessageChunk(
                content="",
                id="ai-1",
                tool_call_chunks=[{"name": "charge" if index == 0 else None, "args": piece, "id": None, "index": 0}],
                chunk_position="last" if index == len(arguments) - 1 else None,
            )
        )
        for index, piece in enumerate(arguments)
    ]

    sent = "".join(dump["tool_call_chunks"][0]["args"] for dump in dumps)
    assert sent == '{"card": "[REDACTED CARD]", "amount": 5}'
    assert not [dump for dump in dumps if "4111" in str(dump)]
    assert dumps[-1]["invalid_tool_calls"] == [
        {
            "name": None,
            "args": '"[REDACTED CARD]", "amount": 5}',
            "id": None,
            "error": None,
            "type": "invalid_tool_call",
        }
    ]
