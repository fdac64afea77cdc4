"""Personal data in a message: payment cards (Luhn-valid), US social security numbers, IBANs (mod-97-valid).

Read on the ``raw`` normalized text, so fullwidth digits and zero-width characters between digit groups
hide nothing. A number is only personal data when its check digits say so: an order number of 16 digits
is not a card.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.guardrails.reasons import PiiReason

__all__ = ("find_pii", "iban_valid", "luhn_valid", "redact_pii")

_CARD_CANDIDATE = re.compile(r"(?<!\d)(?:\d[ .-]?){12,18}\d(?!\d)")
_NATIONAL_ID = re.compile(r"(?<!\d)(?P<area>\d{3})(?P<sep>[- ])(?P<group>\d{2})(?P=sep)(?P<serial>\d{4})(?!\d)")
_DIGIT = re.compile(r"\d")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")


def find_pii(text: str) -> PiiReason | None:
    """The reason code of the first kind of personal data in ``text``, or None."""
    if not _DIGIT.search(text):
        return None
    if any(luhn_valid(re.sub(r"\D", "", m.group())) for m in _CARD_CANDIDATE.finditer(text)):
        return "pii_payment_card"
    if any(_ssn_valid(m) for m in _NATIONAL_ID.finditer(text)):
        return "pii_national_id"
    if any(iban_valid(m.group()) for m in _IBAN.finditer(text)):
        return "pii_bank_account"
    return None


def redact_pii(text: str) -> str:
    text = _CARD_CANDIDATE.sub(
        lambda m: "[REDACTED CARD]" if luhn_valid(re.sub(r"\D", "", m.group())) else m.group(), text
    )
    text = _NATIONAL_ID.sub(lambda m: "[REDACTED ID]" if _ssn_valid(m) else m.group(), text)
    return _IBAN.sub(lambda m: "[REDACTED ACCOUNT]" if iban_valid(m.group()) else m.group(), text)


def luhn_valid(digits: str) -> bool:
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    compact = candidate.replace(" ", "").upper()
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def _ssn_valid(match: re.Match[str]) -> bool:
    """The SSA's rules: no area 000, 666 or 9xx, no group 00, no serial 0000."""
    area = match["area"]
    return (
        area not in ("000", "666") and not area.startswith("9") and match["group"] != "00" and match["serial"] != "0000"
    )
