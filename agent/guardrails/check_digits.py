"""Whether a run of digits is a personal number by its own rules: a card's Luhn digit, an IBAN's country,
length and mod-97 check digits, a US social security number's issued ranges.

A number is only personal data when its checks say so: an order number of 16 digits is not a card.
"""

from __future__ import annotations

__all__ = ("IBAN_LENGTHS", "iban_valid", "luhn_valid", "ssn_valid")

IBAN_LENGTHS = {
    **dict.fromkeys(("NO",), 15),
    **dict.fromkeys(("BE",), 16),
    **dict.fromkeys(("DK", "FI", "FK", "FO", "GL", "NL", "SD"), 18),
    **dict.fromkeys(("MK", "SI"), 19),
    **dict.fromkeys(("AT", "BA", "EE", "KZ", "LT", "LU", "MN", "XK"), 20),
    **dict.fromkeys(("CH", "HR", "LI", "LV"), 21),
    **dict.fromkeys(("BG", "BH", "CR", "DE", "GB", "GE", "IE", "ME", "RS", "VA"), 22),
    **dict.fromkeys(("AE", "GI", "IL", "IQ", "OM", "SO", "TL"), 23),
    **dict.fromkeys(("AD", "CZ", "ES", "MD", "PK", "RO", "SA", "SE", "SK", "TN", "VG"), 24),
    **dict.fromkeys(("LY", "PT", "ST"), 25),
    **dict.fromkeys(("IS", "TR"), 26),
    **dict.fromkeys(("BI", "DJ", "FR", "GR", "IT", "MC", "MR", "SM"), 27),
    **dict.fromkeys(("AL", "AZ", "BY", "CY", "DO", "GT", "HN", "HU", "LB", "NI", "PL", "SV"), 28),
    **dict.fromkeys(("BR", "EG", "PS", "QA", "UA"), 29),
    **dict.fromkeys(("JO", "KW", "MU", "YE"), 30),
    **dict.fromkeys(("MT", "SC"), 31),
    **dict.fromkeys(("LC",), 32),
    **dict.fromkeys(("RU",), 33),
}
"""The length of every country's IBAN, from SWIFT's IBAN registry: a country code that issues none, or a
length its IBANs do not have, is no IBAN whatever its check digits."""
_DIGITS_ONLY = frozenset(
    "AE AT BA BE BI CR CZ DE DJ DK EE EG ES FI FO GL HR HU IL IS LT LY ME MN NO PL PT RS SD SE SI SK SO ST TL "
    "TN VA XK".split()
)
"""Countries whose account part (BBAN) is digits alone: ``be12abcdef345678`` is a hex id, not a Belgian IBAN."""


def luhn_valid(digits: str) -> bool:
    """Card numbers are 13 to 19 digits whose last is the Luhn check digit of the others."""
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """``candidate``, separators and case aside, is an IBAN of its country's length whose check digits hold."""
    compact = "".join(char for char in candidate if char.isascii() and char.isalnum()).upper()
    country = compact[:2]
    if IBAN_LENGTHS.get(country) != len(compact) or not compact[2:4].isdigit():
        return False
    if country in _DIGITS_ONLY and not compact[4:].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def ssn_valid(area: str, group: str, serial: str) -> bool:
    """The SSA's rules: no area 000, 666 or 9xx, no group 00, no serial 0000."""
    return area not in ("000", "666") and not area.startswith("9") and group != "00" and serial != "0000"
