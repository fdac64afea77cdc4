"""The one reading of a text that personal numbers are found in: every character folded, none moved.

A card number, an IBAN or a national id can be dressed up so that a pattern over the text as sent misses it:
fullwidth or other scripts' digits, lower-case or fullwidth or look-alike letters, no-break or typographic
spaces and dashes, or invisible characters (zero-width spaces and joiners, soft hyphens, word joiners, byte
order marks, variation selectors, Unicode tags) between its digits. ``fold_numbers`` undoes each of these
character by character: decimal digits of any script become ASCII digits, letters and punctuation their ASCII
form (compatibility forms and Unicode's confusables), spaces a space, dashes a hyphen, tags the ASCII they
hide, and every invisible character becomes ``MARK``, which the patterns read as transparent.

The reading has exactly as many characters as the text, each in its place, so what a pattern finds in it is
masked at the same positions in the text as sent, invisible characters included. Letter case is kept here;
the patterns fold it. Plain ASCII text, the usual case, is returned as it is.
"""

from __future__ import annotations

import re
import unicodedata

from agent.guardrails.normalize import confusables_table

__all__ = ("MARK", "fold_numbers")

MARK = "\x00"
"""What an invisible character reads as: nothing a person sees, so a pattern steps over it."""
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc"})
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Fillers and the blank Braille pattern: letters or symbols to Unicode, blank to the eye."""
_TAG_CHARACTERS = range(0xE0020, 0xE007F)
_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MAX_CACHED = 65_536
"""Folded characters kept; beyond it (a client cycling through Unicode) they are folded each time."""


class _FoldTable(dict[int, int]):
    """``str.translate``'s table, filled on first sight of each character."""

    def __missing__(self, code: int) -> int:
        folded = ord(_fold(chr(code)))
        if len(self) < _MAX_CACHED:
            self[code] = folded
        return folded


_TABLE = _FoldTable({code: code for code in range(0x80)})
_TABLE.update({ord(char): ord(MARK) for char in map(chr, range(0x80)) if _ASCII_CONTROLS.match(char)})


def fold_numbers(text: str) -> str:
    """``text`` as personal numbers are read in it: same length, same positions."""
    if text.isascii() and not _ASCII_CONTROLS.search(text):
        return text
    return text.translate(_TABLE)


def _fold(char: str) -> str:
    code = ord(char)
    if code in _TAG_CHARACTERS:
        return chr(code - 0xE0000)
    category = unicodedata.category(char)
    if category in _INVISIBLE_CATEGORIES or char in _INVISIBLE_LETTERS:
        return MARK
    digit = unicodedata.decimal(char, None)
    if digit is not None:
        return str(digit)
    if category == "Pd" or char == "\u2212":
        return "-"
    if char.isspace():
        return "\n" if category in ("Zl", "Zp") else " "
    compatible = unicodedata.normalize("NFKC", char)
    if len(compatible) == 1 and compatible.isascii():
        return compatible
    return confusables_table().get(code, char)
