"""Personal data is found by its check digits, through the normalization's tricks and whatever the separators."""

from __future__ import annotations

import pytest

from agent.guardrails.check_digits import iban_valid, luhn_valid
from agent.guardrails.pii import find_pii, redact_pii


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
        ("card 4111/1111/1111/1111", "pii_payment_card"),
        ("card 4111_1111_1111_1111", "pii_payment_card"),
        ("card 4111,1111,1111,1111", "pii_payment_card"),
        ("card 4111   1111   1111   1111", "pii_payment_card"),
        ("card 4111\u200b1111\u200d1111\u20601111", "pii_payment_card"),
        ("card 4\u00ad111 1111 \ufeff1111 1111", "pii_payment_card"),
        ("card 4111\u200b1111 1111 1111 (zero-width inside a group)", "pii_payment_card"),
        ("Amex 3782 822463 10005", "pii_payment_card"),
        ("card 4111 1111 1111 1111 cvv 123", "pii_payment_card"),
        ("ssn 123/45/6789", "pii_national_id"),
        ("ssn 123_45_6789", "pii_national_id"),
        ("ssn 123\u200b45\u200b6789", "pii_national_id"),
        ("ssn 123 - 45 - 6789", "pii_national_id"),
        ("iban de89 3704 0044 0532 0130 00", "pii_bank_account"),
        ("iban DE89-3704-0044-0532-0130-00", "pii_bank_account"),
        ("iban gb82west12345698765432", "pii_bank_account"),
        ("iban \uff24\uff25\uff18\uff19 3704 0044 0532 0130 00", "pii_bank_account"),
        ("iban DE89\u200b3704 0044 0532 0130 00", "pii_bank_account"),
        (
            "AA00 \uff22\uff25\uff15\uff14\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10",
            "pii_bank_account",
        ),
        ("mycard4111 1111 1111 1111", "pii_payment_card"),
    ],
)
def test_personal_data_is_found(message: str, reason: str) -> None:
    assert find_pii(message) == reason


@pytest.mark.parametrize(
    "message",
    [
        "Call me at 4155550100",
        "My order number is 1234567812345678",
        "Invoice INV-1001 for 2026-11-30",
        "the id 000-12-3456 and 666-12-3456 and 123-00-4567 are not issued",
        "Mixed separators 123-45 6789",
        "DE00 3704 0044 0532 0130 00 fails its check digits",
        "On 2026-11-30 10:30:45, 30/11/2026 and 11.30.2026",
        "Call +44 20 7946 0958 or 0049 1512 3456 789 or (415) 555-0100",
        "Orders 10234, 10235, 10236 and 10237",
        "1,234,567,890,123,456 bytes; 1 234 567 890 123 rows",
        "192.168.100.200 and 10.0.19045.4046",
        "s_4f9c2a7d1e3b4c5a, r_0c1d2e3f4a5b6c7d, INV-1001, ACC-2001, v1.2.3",
        "uuid 15a67952-0074-9023-034f-779cba17e176",
        "the word de12 and this that with some text",
        "be12345678901234 is a hex-looking id, and BE12 abcd efgh ijkl no account",
        "version v123.45.6789",
        "1 234 567 890 128 items",
        "call 0049 1512 3456 100",
        "ping 192.168.100.109 10.0.0.109",
        "release v1320.1380.2300.4376",
    ],
)
def test_numbers_that_are_not_personal_data_pass(message: str) -> None:
    assert find_pii(message) is None
    assert redact_pii(message) == message


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


def test_a_number_is_masked_with_the_invisible_characters_and_separators_inside_it() -> None:
    assert redact_pii("Paid by 4111\u200b1111\u200b1111\u200b1111, thanks") == "Paid by [REDACTED CARD], thanks"
    assert redact_pii("de89-3704-0044-0532-0130-00 / 123\u200d45\u200d6789") == "[REDACTED ACCOUNT] / [REDACTED ID]"


def test_an_iban_has_its_country_length_and_digits_where_its_country_has_them() -> None:
    assert iban_valid("de89 3704 0044 0532 0130 00")
    assert not iban_valid("DE89 3704 0044 0532 0130 0")  # one short of Germany's 22
    assert not iban_valid("XX89 3704 0044 0532 0130 00")  # no such country
    assert not iban_valid("BE55 ABCD EFGH 1234")  # its check digits hold, but Belgian accounts are digits
