"""The first layer of the input guardrail: the message in the forms the rules read, with the tricks undone.

Attackers dress a known phrase up so that a pattern no longer sees it. Each trick is undone once, here,
so every rule reads plain lower-case ASCII words:

- invisible characters (zero-width spaces and joiners, bidi controls, soft hyphens, variation
  selectors) are dropped, and Unicode tag characters, which smuggle invisible ASCII, are decoded;
- compatibility forms (fullwidth or mathematical letters) and accents and stacked combining marks fold
  away (NFKD, combining marks dropped);
- confusable letters of other scripts (a Cyrillic or Greek o) become the Latin letter they imitate, from
  Unicode's confusables table;
- case folds; leetspeak inside words (``pr0mpt``, ``1gn0r3``) is read as letters;
- letters spelt apart (``i g n o r e``, ``p.r.e.v.i.o.u.s``) are joined, and punctuation inside a word
  (``ig.nore``, ``sys-tem``) is dropped;
- base64 runs that decode to readable text are decoded, so an encoded instruction is read too.

``raw`` keeps case, digits and punctuation (pasted keys are found there; personal numbers have a reading
of their own, ``number_fold``, which keeps every position so that what it finds can be masked); ``words``
is what the intent rules read; ``decoded`` holds the readable text of base64 runs, normalized the same way.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from functools import cache

import msgspec
from confusable_homoglyphs import utils as homoglyph_data

__all__ = ("NormalizedText", "confusables_table", "normalize")

_TAGS = {code: chr(code - 0xE0000) for code in range(0xE0020, 0xE007F)}
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc"})
_KEEP_CONTROLS = frozenset("\n\t")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s"})
_ONE_AS_L = re.compile(r"(?<=[aeiouy])[1|]+|[1|]+(?=[aeiouy])(?<![^a-z0-9@$|][1|])(?<!^[1|])")
"""A leet one that stands for ``l``: after a vowel, or before one when it does not start the word."""
_LEET_TOKEN = re.compile(r"[a-z0-9@$|]*[a-z][a-z0-9@$|]*")
_LEET_CHARS = re.compile(r"[0-9@$|]")
_LEET_IN_WORD = re.compile(r"[a-z][0-9@$|]|[0-9@$|][a-z]")
_SPACED_LETTERS = re.compile(
    r"(?<![a-z0-9])[a-z0-9](?P<sep>[ .\-_*·,/\\|+~])(?:[a-z0-9](?P=sep)){1,}[a-z0-9](?![a-z0-9])"
)
"""Three or more single letters with one and the same separator between them: ``i g n o r e``, ``p.r.e.v``."""
_IN_WORD_PUNCTUATION = re.compile(r"(?<=[a-z])[.\-*~^](?=[a-z])")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'"})
_SPACES = re.compile(r"\s+")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_PRINTABLE = frozenset(range(0x20, 0x7F)) | {0x0A, 0x0D, 0x09}


class NormalizedText(msgspec.Struct, frozen=True, kw_only=True):
    raw: str
    """Invisible characters dropped, tags decoded, NFKC and confusables folded; case and punctuation kept."""
    words: tuple[str, ...]
    """Lower-case ASCII-folded readings for the intent rules: the main one (a leet ``1`` read as ``i``), and,
    when the message has a ``1`` or ``|`` inside a word, one that reads it as ``l`` next to a vowel (``a11``
    is ``all``, ``ru1es`` is ``rules``, ``1gnore`` stays ``ignore``)."""
    lines: str
    """Lower case and folded like ``words``, with punctuation and line breaks kept (for forged headers)."""
    decoded: tuple[str, ...] = ()
    """The ``words`` reading of each base64 run that decodes to readable text."""


def normalize(message: str) -> NormalizedText:
    raw = _fold_confusables(unicodedata.normalize("NFKC", _visible(message)))
    lines = _ascii_lower(raw)
    if not _LEET_IN_WORD.search(lines):
        return NormalizedText(raw=raw, words=(_words(lines),), lines=lines, decoded=_decoded_runs(raw))
    readings = [_words(_LEET_TOKEN.sub(_leet, lines))]
    if "1" in lines or "|" in lines:
        alternative = _words(_LEET_TOKEN.sub(_leet_l, lines))
        if alternative != readings[0]:
            readings.append(alternative)
    return NormalizedText(raw=raw, words=tuple(readings), lines=lines, decoded=_decoded_runs(raw))


def _visible(text: str) -> str:
    """Tag characters decoded to the ASCII they hide; other invisible characters dropped."""
    text = text.translate(_TAGS)
    if text.isascii():
        return text
    return "".join(c for c in text if c in _KEEP_CONTROLS or unicodedata.category(c) not in _INVISIBLE_CATEGORIES)


def _ascii_lower(text: str) -> str:
    """Accents and compatibility forms folded (NFKD, marks dropped), then case-folded and apostrophes unified."""
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return text.casefold().translate(_APOSTROPHES)


def _words(text: str) -> str:
    text = _SPACED_LETTERS.sub(lambda m: m.group().replace(m.group("sep"), ""), text)
    text = _IN_WORD_PUNCTUATION.sub("", text)
    return _SPACES.sub(" ", text).strip()


def _leet(match: re.Match[str]) -> str:
    token = match.group()
    return token.translate(_LEET) if _LEET_CHARS.search(token) else token


def _leet_l(match: re.Match[str]) -> str:
    token = match.group()
    if not _LEET_CHARS.search(token):
        return token
    return _ONE_AS_L.sub(lambda ones: "l" * len(ones.group()), token).translate(_LEET)


def _fold_confusables(text: str) -> str:
    return text if text.isascii() else text.translate(confusables_table())


@cache
def confusables_table() -> dict[int, str]:
    """Every non-ASCII character that Unicode's confusables table says imitates one ASCII letter or digit."""
    table: dict[int, str] = {}
    for char, glyphs in homoglyph_data.load("confusables.json").items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_glyphs = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
        if ascii_glyphs:
            table[ord(char)] = ascii_glyphs[0]
    return table


def _decoded_runs(raw: str) -> tuple[str, ...]:
    readings: list[str] = []
    for run in _BASE64_RUN.findall(raw):
        try:
            data = base64.b64decode(run + "=" * (-len(run) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        if len(data) >= 8 and sum(byte in _PRINTABLE for byte in data) >= 0.95 * len(data):
            readings.append(_words(_ascii_lower(data.decode("ascii", errors="ignore"))))
    return tuple(readings)
