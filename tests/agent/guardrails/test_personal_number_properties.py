"""Properties of the one reading of personal numbers: every card, IBAN and SSN is found however it is written
(separators, case, fullwidth and invisible characters, in random text), and masked so that nothing of it is
left, by the screen, by ``redact`` and by the log redactor; ordinary text with digits is neither refused nor
changed."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.guardrails import check_input, redact
from agent.guardrails.number_fold import fold_numbers
from agent.guardrails.pii import find_pii, redact_pii
from agent.intake import admit_decision
from agent.log_privacy import LogRedactor
from tests.support.personal_numbers import (
    PlantedNumber,
    carries,
    ordinary_texts,
    personal_numbers,
    planted_in_text,
)


@settings(max_examples=1000, deadline=None)
@given(number=personal_numbers())
def test_every_written_number_is_found_as_its_kind(number: PlantedNumber) -> None:
    assert find_pii(number.text) == number.reason
    verdict = check_input(f"Here it is: {number.text}")
    assert (verdict.allowed, verdict.reason) == (False, number.reason)


@settings(max_examples=1000, deadline=None)
@given(planted=planted_in_text())
def test_nothing_of_a_number_in_random_text_survives_redaction(planted: tuple[str, PlantedNumber]) -> None:
    text, number = planted
    assert carries(text, number), "the generator planted the number"
    assert find_pii(text) is not None
    assert not check_input(text).allowed
    for masked in (redact(text), redact_pii(text), LogRedactor().mask(text)):
        assert not carries(masked, number), masked


@settings(max_examples=300, deadline=None)
@given(planted=planted_in_text(), safe=st.sampled_from(["/", ""]))
def test_a_number_behind_percent_escapes_in_a_log_line_is_masked(planted: tuple[str, PlantedNumber], safe: str) -> None:
    text, number = planted
    line = f'"GET /runs/{quote(text, safe=safe)} HTTP/1.1" 404'

    masked = LogRedactor().mask(line)

    assert not carries(masked, number), masked
    assert "\n" not in masked


@settings(max_examples=300, deadline=None)
@given(planted=planted_in_text())
def test_a_decision_comment_carrying_a_number_enters_masked(planted: tuple[str, PlantedNumber]) -> None:
    text, number = planted
    decision = admit_decision("apv_1", "approve", text)

    assert decision["comment"] is not None
    assert "[REDACTED" in decision["comment"]
    assert not carries(decision["comment"], number)


@settings(max_examples=1000, deadline=None)
@given(text=ordinary_texts())
def test_ordinary_text_with_digits_is_neither_refused_nor_changed(text: str) -> None:
    assert find_pii(text) is None
    assert redact(text) == text
    assert check_input(text).allowed


@settings(max_examples=1000, deadline=None)
@given(text=st.text())
def test_the_reading_keeps_every_position_and_any_text_is_read(text: str) -> None:
    assert len(fold_numbers(text)) == len(text)
    assert len(redact_pii(text)) >= 0
