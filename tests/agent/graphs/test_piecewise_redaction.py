"""A personal number, key or password a model writes piece by piece never gets out, however the pieces fall."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk

from agent.graphs.message_chunks import ChunkRedactor
from agent.graphs.piecewise_redaction import PiecewiseRedactor
from agent.guardrails import redact
from tests.support.personal_numbers import (
    PlantedNumber,
    carries,
    ordinary_texts,
    personal_numbers,
    planted_in_text,
)

SECRETS = [
    "my password is Tr0ub4dor&3 and nothing else",
    "use sk-proj-abcdefghijklmnopqrstuvwxyz012345 for the API",
    "the token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2ln please",
    "my password is" + " \n" * 60 + "Tr0ub4dor&3 and nothing else",
    "here -----BEGIN ENCRYPTED PRIVATE KEY----- MIIE",
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


SHORT_WORDS = st.sampled_from(["tok", "a", "of", "GB", "DE", "WEST", "is", "-", "/", "12", "4111", "AB12", "x9"])
"""Words that may each belong to a number (short, or with a digit): what the redactor used to hold to the end."""


@st.composite
def long_texts_with_numbers(draw: st.DrawFn) -> tuple[str, list[PlantedNumber]]:
    """Hundreds of characters of short words, ordinary numbers and personal numbers, one or two blanks apart:
    long enough that text is let out before the message ends, with numbers on either side of where it is."""
    parts: list[str] = []
    numbers: list[PlantedNumber] = []
    for kind in draw(st.lists(st.sampled_from(["words", "number", "ordinary", "secret"]), min_size=4, max_size=14)):
        if kind == "secret":
            parts.append(draw(st.sampled_from(SECRETS)))
        elif kind == "number":
            number = draw(personal_numbers())
            numbers.append(number)
            parts.append(number.text)
        elif kind == "ordinary":
            parts.append(draw(ordinary_texts()))
        else:
            parts.append(" ".join(draw(st.lists(SHORT_WORDS, min_size=1, max_size=25))))
    gaps = draw(st.lists(st.sampled_from([" ", "  ", " \u200b"]), min_size=len(parts), max_size=len(parts)))
    return "".join(gap + part for gap, part in zip(gaps, parts, strict=True)).strip(), numbers


LETTER_GROUPS_IN_ONE_WORD = (
    "１０００ ００００ ００００ ０００８ 1900-01-01 "
    "ＦＲ８５ ００００ ００００ ００００ ＡＡＡＡ.ＡＡＡＡ ０００ "
    "tok 1900-01-01 １０００００００００００００００００９"
)
"""Found by Hypothesis: cut after ``ＡＡＡＡ.ＡＡＡＡ ０``, the IBAN's letter groups joined by a dot were read as a long
word that ends every number, and the IBAN was let out unmasked."""


@settings(max_examples=300, deadline=None)
@given(drawn=long_texts_with_numbers(), cuts=st.lists(st.integers(min_value=0), max_size=80))
@example(
    drawn=(
        LETTER_GROUPS_IN_ONE_WORD,
        [
            PlantedNumber("１０００ ００００ ００００ ０００８", "1000000000000008", "pii_payment_card"),
            PlantedNumber(
                "ＦＲ８５ ００００ ００００ ００００ ＡＡＡＡ.ＡＡＡＡ ０００",
                "FR85000000000000AAAAAAAA000",
                "pii_bank_account",
            ),
            PlantedNumber("１０００００００００００００００００９", "1000000000000000009", "pii_payment_card"),
        ],
    ),
    cuts=[62],
)
def test_long_streams_let_out_early_are_the_whole_text_redacted_and_no_piece_holds_a_number(
    drawn: tuple[str, list[PlantedNumber]], cuts: list[int]
) -> None:
    text, numbers = drawn
    whole = redact(text)

    out = let_out(pieces_of(text, cuts))

    assert "".join(out) == whole
    for number in numbers:
        if not carries(whole, number):
            assert not [piece for piece in out if carries(piece, number)]
    masks = [mask.span() for mask in re.finditer(r"\[REDACTED[A-Z ]*\]", whole)]
    edges = set(itertools.accumulate(len(piece) for piece in out))
    assert not [span for span in masks if any(span[0] < edge < span[1] for edge in edges)], "a mask let out in parts"


def test_short_words_streamed_for_long_are_let_out_a_bounded_way_behind() -> None:
    redactor = PiecewiseRedactor()
    out: list[str] = []
    kept: list[int] = []

    for _ in range(20_000):
        out.append(redactor.feed("message", "tok "))
        kept.append(redactor.kept)

    out.append(redactor.feed("message", "", last=True))
    assert "".join(out) == "tok " * 20_000
    assert max(kept) <= 4 * 64
    assert sum(map(len, out[:-1])) >= 4 * 20_000 - 2 * 64


def test_numbers_among_short_words_are_masked_and_the_hold_stays_bounded() -> None:
    card = "4111 1111 1111 1111"
    piece = f"tok a {card} of 12 / 7 "
    redactor = PiecewiseRedactor()
    out: list[str] = []
    kept: list[int] = []

    for word in re.findall(r"\S+\s*", piece * 2_000):
        out.append(redactor.feed("message", word))
        kept.append(redactor.kept)

    out.append(redactor.feed("message", "", last=True))
    assert "".join(out) == redact(piece * 2_000)
    assert not [chunk for chunk in out if "4111" in chunk or "1111" in chunk]
    assert max(kept) <= 4 * 64 + len(piece)


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


@pytest.mark.parametrize(
    "letters",
    ["AAAA.AAAA", "AAAA-AAAA", "AAAA/AAAA", "AAAA_AAAA", "AAAA,AAAA", "AAAA -AAAA", "AAAA- AAAA", "AA\u200bAAAAAA"],
)
def test_an_ibans_letter_groups_written_as_one_word_hold_it_until_it_ends(letters: str) -> None:
    out = let_out(re.findall(r"\s*\S+", f"Pay to FR85 0000 0000 0000 {letters} 000 today."))

    assert "".join(out) == "Pay to [REDACTED ACCOUNT] today."
    assert not [piece for piece in out if "FR85" in piece or "AAAA" in piece or "000" in piece]


def test_a_private_key_header_streamed_word_by_word_is_masked_whole() -> None:
    out = let_out(re.findall(r"\s*\S+", "Here is -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXk"))

    assert "".join(out) == "Here is [REDACTED KEY] b3BlbnNzaC1rZXk"


def test_a_password_given_after_many_blank_lines_is_masked_and_they_are_let_out() -> None:
    redactor = PiecewiseRedactor()

    out = [redactor.feed("message", "my password is"), *(redactor.feed("message", "\n") for _ in range(500))]
    out += [redactor.feed("message", " Tr0ub4dor&3"), redactor.feed("message", " ok", last=True)]

    assert "".join(out) == "my password is" + "\n" * 500 + " [REDACTED] ok"
    assert sum(map(len, out[:501])) == len("my password is") + 500
    assert not [piece for piece in out if "Tr0ub" in piece]


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
