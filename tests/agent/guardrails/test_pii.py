"""Personal data is found by its check digits, through the normalization's tricks."""

from __future__ import annotations

import pytest

from agent.guardrails.normalize import normalize
from agent.guardrails.pii import find_pii, iban_valid, luhn_valid, redact_pii


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("My card is 4111 1111 1111 1111, please charge it", "pii_payment_card"),
        ("card 5555-5555-5555-4444 exp 12/29", "pii_payment_card"),
        ("Charge 4111.1111.1111.1111", "pii_payment_card"),
        ("card \uff14\uff11\uff11\uff11 1111 1111 1111", "pii_payment_card"),
        ("card 4111\u200b 1111\u200b 1111\u200b 1111", "pii_payment_card"),
        ("my SSN is 123-45-6789", "pii_national_id"),
        ("my SSN is 123 45 6789", "pii_national_id"),
        ("send it to IBAN DE89 3704 0044 0532 0130 00 please", "pii_bank_account"),
        ("Refund to NL91ABNA0417164300", "pii_bank_account"),
    ],
)
def test_personal_data_is_found(message: str, reason: str) -> None:
    assert find_pii(normalize(message).raw) == reason


@pytest.mark.parametrize(
    "message",
    [
        "Call me at 4155550100",
        "My order number is 1234567812345678",
        "Invoice INV-1001 for 2026-11-30",
        "the id 000-12-3456 and 666-12-3456 and 123-00-4567 are not issued",
        "Mixed separators 123-45 6789",
        "DE00 3704 0044 0532 0130 00 fails its check digits",
    ],
)
def test_numbers_that_are_not_personal_data_pass(message: str) -> None:
    assert find_pii(normalize(message).raw) is None


def test_check_digits() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert not luhn_valid("411111")
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert not iban_valid("GB82 WEST 1234 5698 7654 33")


def test_redaction_keeps_what_is_not_personal() -> None:
    assert redact_pii("card 4111 1111 1111 1111, order 1234567812345678, SSN 123-45-6789") == (
        "card [REDACTED CARD], order 1234567812345678, SSN [REDACTED ID]"
    )
