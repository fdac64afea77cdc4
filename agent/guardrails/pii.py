"""Personal numbers in a text: payment cards, US social security numbers, IBANs, however they are written.

Found in ``fold_numbers``' reading, so digits of other scripts, fullwidth or look-alike letters, lower case and
invisible characters hide nothing, and masked at the same positions in the text as sent. Each kind is a
shape first and then its checks (``check_digits``): a card is 13 to 19 digits passing Luhn, an IBAN a
country's length passing mod 97, a national id a US SSN in the SSA's issued ranges.

Ordinary text is full of digits, so the shapes decide what may be read as one number, and gluing every digit
together (one run in ten passes Luhn) is what they avoid:

- a number's groups are joined only by a separator of at most three blanks, or one ``-``, ``/`` or ``_``
  (a blank either side allowed), or a bare ``.`` or ``,``. A letter, a word, a line break, any other
  punctuation, or ``, `` and ``. `` (a list or a sentence going on) end it. Invisible characters are
  read through wherever they are;
- a card is one unbroken run, or groups of 4 to 6 digits with a last group of 1 to 6 (4-4-4-4, 4-6-5,
  4-4-4-4-3...) standing clear of letters, or glued to a word in a printed shape with blanks between; it
  never starts with 0. So dates (2026-11-30), times, IP addresses, thousands (1,234,567), phone numbers in
  2- or 3-digit groups, versions and UUIDs never add up to one;
- an IBAN is its country code and check digits, then the rest unbroken or in groups of four, the last
  shorter, of exactly its country's length, with digits in its account part;
- a national id is 3-2-4 digits with one and the same separator twice, an invisible one included.

A group with invisible characters inside it may have any size: ``4111<ZWSP>1111 1111 1111`` reads as
8-4-4 digits but is written 4-4-4-4, and ordinary text has no invisible characters between its digits.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, NamedTuple

from agent.guardrails.check_digits import IBAN_LENGTHS, iban_valid, luhn_valid, ssn_valid
from agent.guardrails.number_fold import MARK, fold_numbers

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent.guardrails.reasons import PiiReason

__all__ = ("PersonalNumber", "find_pii", "personal_numbers", "redact_pii")

_BLANK = r"[ \t]\x00*"
_JOIN = rf"\x00*(?:(?:{_BLANK}){{1,3}}|(?:{_BLANK})?[-/_]\x00*(?:{_BLANK})?|[.,]\x00*)"
"""What may stand between two groups of one number: a separator, invisible characters anywhere in it."""
_DIGIT_RUN = r"[0-9](?:\x00*[0-9])*"
_ALNUM_RUN = r"[0-9A-Za-z](?:\x00*[0-9A-Za-z])*"
_DIGIT_GROUP = re.compile(_DIGIT_RUN)
_ALNUM_GROUP = re.compile(_ALNUM_RUN)
_DIGITS = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")
_NUMBERISH = r"[0-9\x00 \t./_,\-]"
_STARTS_WORD = r"(?<![0-9A-Za-z].)"
"""After a number's first character: the one before it is no letter or digit. Each pattern starts with a plain
character class, so the regex engine skips ahead to where one can start instead of trying every position."""
_CARD = re.compile(rf"[0-9](?<![0-9].)(?={_NUMBERISH}{{12}})(?:\x00*[0-9])*(?:{_JOIN}{_DIGIT_RUN})*")
"""Runs of digit groups at least 13 characters long, from the first digit of a run."""
_IBAN = re.compile(
    rf"[A-Za-z]{_STARTS_WORD}\x00*[A-Za-z]\x00*[0-9]\x00*[0-9](?:\x00*[0-9A-Za-z])*(?:{_JOIN}{_ALNUM_RUN}){{0,8}}"
)
"""A country code and check digits starting a word, and up to eight groups joined to them like one number
(the longest IBAN, 34 characters, in groups of four)."""
_SSN = re.compile(
    rf"(?P<area>[0-9]{_STARTS_WORD}(?<![0-9]\x00.)(?<![0-9][-./_,].)(?={_NUMBERISH}{{10}})(?:\x00*[0-9]){{2}})"
    rf"(?P<first>{_JOIN}|\x00+)(?P<group>[0-9]\x00*[0-9])(?P<second>{_JOIN}|\x00+)(?P<serial>[0-9](?:\x00*[0-9]){{3}})"
    r"(?![A-Za-z])(?!\x00*[0-9])(?![-./_,][0-9])"
)
_MASKS: dict[PiiReason, str] = {
    "pii_payment_card": "[REDACTED CARD]",
    "pii_national_id": "[REDACTED ID]",
    "pii_bank_account": "[REDACTED ACCOUNT]",
}
_PRIORITY: tuple[PiiReason, ...] = ("pii_payment_card", "pii_national_id", "pii_bank_account")
_CARD_DIGITS = range(13, 20)
_CARD_GROUP = range(4, 7)
_LAST_CARD_GROUP = range(1, 7)
_PRINTED_SHAPES = frozenset({(4, 4, 4, 4), (4, 4, 4, 4, 3), (4, 6, 5), (4, 6, 4), (4, 4, 4, 1), (4, 4, 4, 4, 2)})
"""How card numbers are printed: 16 and 19 digits in fours, American Express and Diners in 4-6-5 and 4-6-4."""
_BLANKS = re.compile(r"[ \t\x00]+")
_MIN_ACCOUNT_DIGITS = 4


class PersonalNumber(NamedTuple):
    """Where a personal number stands in a text (``text[start:end]``) and the reason code of its kind."""

    start: int
    end: int
    reason: PiiReason


class _Group(NamedTuple):
    start: int
    end: int
    chars: str
    """Its digits (and letters), invisible characters left out."""
    hidden: bool
    """Invisible characters stand inside it."""


def personal_numbers(text: str) -> list[PersonalNumber]:
    """Where ``text`` holds a card number, a national id or an IBAN, in order; overlapping finds merged."""
    folded = fold_numbers(text)
    if not _DIGITS.search(folded):
        return []
    found = _ibans(folded)
    found += [number for number in _cards(folded) if not _overlaps(number, found)]
    found += [number for number in _national_ids(folded) if not _overlaps(number, found)]
    return _merged(sorted(found))


def find_pii(text: str) -> PiiReason | None:
    """The reason code of the first kind of personal number in ``text`` (cards first, then national ids, then
    bank accounts), or None."""
    kinds = {number.reason for number in personal_numbers(text)}
    return next((reason for reason in _PRIORITY if reason in kinds), None)


def redact_pii(text: str) -> str:
    """``text`` with each personal number, separators and invisible characters within it, masked."""
    found = personal_numbers(text)
    if not found:
        return text
    parts: list[str] = []
    cursor = 0
    for start, end, reason in found:
        parts += [text[cursor:start], _MASKS[reason]]
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _groups(pattern: re.Pattern[str], folded: str, chain: re.Match[str]) -> Iterator[_Group]:
    for group in pattern.finditer(folded, chain.start(), chain.end()):
        chars = group.group()
        yield _Group(group.start(), group.end(), chars.replace(MARK, ""), MARK in chars)


def _cards(folded: str) -> list[PersonalNumber]:
    found: list[PersonalNumber] = []
    for chain in _CARD.finditer(folded):
        found += _card_windows(folded, list(_groups(_DIGIT_GROUP, folded, chain)))
    return found


def _card_windows(folded: str, groups: list[_Group]) -> list[PersonalNumber]:
    """Every run of whole groups shaped like a card number whose digits pass Luhn. Groups glued to a letter
    (``card4111 1111 1111 1111``) count only in a shape cards are printed in, with blanks between them: in a
    UUID (``15a67952-0074-9023-034f``) or a version (``v1320.1380.2300.4376``) they do not."""
    found: list[PersonalNumber] = []
    for first, opening in enumerate(groups):
        if opening.chars.startswith("0"):
            continue
        glued = opening.start > 0 and _LETTER.match(folded, opening.start - 1) is not None
        digits = ""
        for last in range(first, len(groups)):
            group = groups[last]
            if last > first and not _card_group(groups[last - 1], _CARD_GROUP):
                break
            digits += group.chars
            if len(digits) > _CARD_DIGITS[-1]:
                break
            shaped = len(digits) in _CARD_DIGITS and _card_shaped(folded, groups[first : last + 1], glued=glued)
            if shaped and luhn_valid(digits):
                found.append(PersonalNumber(opening.start, group.end, "pii_payment_card"))
    return found


def _card_shaped(folded: str, groups: list[_Group], *, glued: bool) -> bool:
    if len(groups) == 1:
        return True
    if not _card_group(groups[-1], _LAST_CARD_GROUP):
        return False
    if glued or _LETTER.match(folded, groups[-1].end):
        shape = tuple(len(group.chars) for group in groups)
        return (shape in _PRINTED_SHAPES or any(group.hidden for group in groups)) and all(
            _BLANKS.fullmatch(folded, before.end, after.start) for before, after in itertools.pairwise(groups)
        )
    return True


def _card_group(group: _Group, sizes: range) -> bool:
    return group.hidden or len(group.chars) in sizes


def _ibans(folded: str) -> list[PersonalNumber]:
    """Each IBAN, looked for from every word that starts like one: ``AA00 BE54 0000 ...`` holds one after its
    first word."""
    found: list[PersonalNumber] = []
    chain = _IBAN.search(folded)
    while chain is not None:
        iban = _iban(folded, chain)
        if iban is not None:
            found.append(iban)
        chain = _IBAN.search(folded, iban.end if iban else chain.start() + 1)
    return found


def _iban(folded: str, chain: re.Match[str]) -> PersonalNumber | None:
    length = IBAN_LENGTHS.get(chain.group().replace(MARK, "")[:2].upper())
    if length is None:
        return None
    compact = ""
    for index, group in enumerate(_groups(_ALNUM_GROUP, folded, chain)):
        if index > 0 and not (group.hidden or len(group.chars) <= 4):
            return None  # unbroken, or in groups of four
        compact += group.chars
        if len(compact) >= length:
            if len(compact) == length and _iban_account(compact):
                return PersonalNumber(chain.start(), group.end, "pii_bank_account")
            return None
        if not (group.hidden or len(group.chars) == 4):
            return None  # a shorter group ends the number before its country's length
    return None


def _iban_account(compact: str) -> bool:
    return sum(char.isdigit() for char in compact[4:]) >= _MIN_ACCOUNT_DIGITS and iban_valid(compact)


def _national_ids(folded: str) -> list[PersonalNumber]:
    found: list[PersonalNumber] = []
    for match in _SSN.finditer(folded):
        area, group, serial = (match[name].replace(MARK, "") for name in ("area", "group", "serial"))
        if _separator_kind(match["first"]) == _separator_kind(match["second"]) and ssn_valid(area, group, serial):
            found.append(PersonalNumber(match.start(), match.end(), "pii_national_id"))
    return found


def _separator_kind(separator: str) -> str:
    """The punctuation of a separator, a blank for blanks alone, nothing for invisible characters alone."""
    visible = separator.replace(MARK, "")
    return visible.strip(" \t") or visible[:1]


def _overlaps(number: PersonalNumber, others: list[PersonalNumber]) -> bool:
    return any(number.start < other.end and other.start < number.end for other in others)


def _merged(found: list[PersonalNumber]) -> list[PersonalNumber]:
    """Overlapping finds as one, of the kind of the first: a card found twice (two Luhn-valid runs of whole
    groups overlap) is masked once, whole."""
    merged: list[PersonalNumber] = []
    for number in found:
        if merged and number.start < merged[-1].end:
            previous = merged[-1]
            merged[-1] = PersonalNumber(previous.start, max(previous.end, number.end), previous.reason)
        else:
            merged.append(number)
    return merged
