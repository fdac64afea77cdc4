"""Personal numbers as people and attackers write them, ordinary text with digits that holds none, and
``carries``: whether stored or sent bytes still hold a number, however it was written there.

The strategies draw valid numbers (a Luhn-valid card in a shape card numbers are printed in, an IBAN of a
few countries with its mod-97 check digits, a US SSN in the issued ranges), then write them with random
separators (spaces, several spaces, dots, dashes, slashes, underscores, commas, no-break spaces, fullwidth
dashes, or invisible characters alone), invisible characters at random places (zero-width space, non-joiner
and joiner, soft hyphen, word joiner, byte order mark), fullwidth digits, and random case for IBAN letters,
inside random text.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from typing import NamedTuple
from urllib.parse import unquote

from hypothesis import assume
from hypothesis import strategies as st

__all__ = (
    "INVISIBLE",
    "PlantedNumber",
    "cards",
    "carries",
    "ibans",
    "national_ids",
    "ordinary_texts",
    "personal_numbers",
    "planted_in_text",
    "with_luhn_digit",
)

INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\ufeff")
_SEPARATORS = (
    *(" ", "  ", "   ", "\t", "\u00a0", "\u3000"),
    *(".", "-", "/", "_", ",", " - ", " / ", "\u2011", "\uff0d", "\uff0f"),
    *INVISIBLE,
)
_CARD_SHAPES = ((4, 4, 4, 4), (4, 6, 5), (4, 6, 4), (4, 4, 4, 4, 3), (4, 4, 4, 1), (16,), (15,), (19,), (13,))
_BBANS = {
    "DE": "18n",
    "GB": "4a14n",
    "NL": "4a10n",
    "FR": "10n11c2n",
    "IT": "1a10n12c",
    "ES": "20n",
    "BE": "12n",
    "NO": "11n",
    "CH": "5n12c",
    "MT": "4a5n18c",
}
"""A few countries' account parts, as SWIFT's IBAN registry writes them: ``n`` digits, ``a`` letters, ``c`` both."""
_CLASSES = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "c": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
_TEXT = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;!?()'\"-éßДж€"),
    max_size=30,
)
"""Surroundings: words, digits, punctuation, a few letters of other scripts."""
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\[tnr]")
_BETWEEN = r"[\s.,/_+\-\u2010-\u2015\u2212]*"


class PlantedNumber(NamedTuple):
    text: str
    """The number as written, separators and invisible characters included."""
    compact: str
    """Its digits (and an IBAN's letters, upper case) alone."""
    reason: str
    """The refusal reason it must get."""


def with_luhn_digit(body: str) -> str:
    """``body`` and the Luhn check digit that makes it a valid card number."""
    return next(body + digit for digit in "0123456789" if _luhn_total(body + digit) % 10 == 0)


def cards() -> st.SearchStrategy[PlantedNumber]:
    return st.sampled_from(_CARD_SHAPES).flatmap(_card)


def ibans() -> st.SearchStrategy[PlantedNumber]:
    return st.sampled_from(sorted(_BBANS)).flatmap(_iban)


def national_ids() -> st.SearchStrategy[PlantedNumber]:
    areas = st.integers(1, 899).filter(lambda area: area != 666).map(lambda area: f"{area:03d}")
    groups = st.integers(1, 99).map(lambda group: f"{group:02d}")
    serials = st.integers(1, 9999).map(lambda serial: f"{serial:04d}")
    return st.tuples(areas, groups, serials, st.sampled_from(_SEPARATORS)).flatmap(
        lambda parts: _written(list(parts[:3]), [parts[3]] * 2, "pii_national_id")
    )


def personal_numbers() -> st.SearchStrategy[PlantedNumber]:
    return st.one_of(cards(), ibans(), national_ids())


@st.composite
def planted_in_text(
    draw: st.DrawFn, numbers: st.SearchStrategy[PlantedNumber] | None = None
) -> tuple[str, PlantedNumber]:
    """A message or comment with one personal number in random text: ``(text, number)``."""
    number = draw(numbers or personal_numbers())
    return f"{draw(_TEXT)} {number.text} {draw(_TEXT)}".strip(), number


def ordinary_texts() -> st.SearchStrategy[str]:
    """Texts with digits that carry no personal number: dates, times, phone numbers, order numbers, invoice
    and account ids, versions, quantities, IP addresses, UUIDs and the service's own hex ids."""
    parts = st.one_of(
        _dates(),
        _times(),
        _phone_numbers(),
        _order_numbers(),
        _references(),
        _versions(),
        _quantities(),
        _ips(),
        st.uuids().map(str),
        _hex_ids(),
    )
    return st.lists(parts, min_size=1, max_size=4).map(" and ".join)


def carries(data: str | bytes, number: PlantedNumber) -> bool:
    """Whether ``data`` holds ``number``'s digits (and letters) in order with nothing but separators, invisible
    characters, JSON escapes or percent-escapes between them: a number stored as sent, or half masked, is found."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = unquote(_JSON_ESCAPE.sub(lambda m: chr(int(m[1], 16)) if m[1] else " ", text))
    text = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) not in ("Cf", "Mn"))
    return re.search(_BETWEEN.join(map(re.escape, number.compact)), text, re.IGNORECASE) is not None


def _card(shape: tuple[int, ...]) -> st.SearchStrategy[PlantedNumber]:
    length = sum(shape)
    bodies = st.tuples(st.integers(1, 9), st.text(alphabet="0123456789", min_size=length - 2, max_size=length - 2))
    numbers = bodies.map(lambda body: with_luhn_digit(f"{body[0]}{body[1]}"))
    separators = st.lists(st.sampled_from(_SEPARATORS), min_size=len(shape) - 1, max_size=len(shape) - 1)
    return st.tuples(numbers, separators).flatmap(
        lambda drawn: _written(_split(drawn[0], shape), drawn[1], "pii_payment_card")
    )


def _iban(country: str) -> st.SearchStrategy[PlantedNumber]:
    pieces = re.findall(r"(\d+)([nac])", _BBANS[country])
    bban = st.tuples(*(st.text(alphabet=_CLASSES[kind], min_size=int(n), max_size=int(n)) for n, kind in pieces))
    numbers = bban.map(lambda parts: _with_check_digits(country, "".join(parts)))

    def written(compact: str) -> st.SearchStrategy[PlantedNumber]:
        groups = [compact[i : i + 4] for i in range(0, len(compact), 4)]
        grouped = st.lists(st.sampled_from(_SEPARATORS), min_size=len(groups) - 1, max_size=len(groups) - 1)
        return st.one_of(
            grouped.flatmap(lambda separators: _written(groups, separators, "pii_bank_account")),
            _written([compact], [], "pii_bank_account"),
        )

    return numbers.flatmap(written)


@st.composite
def _written(draw: st.DrawFn, groups: list[str], separators: list[str], reason: str) -> PlantedNumber:
    """``groups`` joined by ``separators``, then dressed up: random case, fullwidth characters, invisible ones."""
    compact = "".join(groups)
    text = groups[0] + "".join(sep + group for sep, group in zip(separators, groups[1:], strict=True))
    chars = [
        _fullwidth(char) if draw(st.integers(0, 5)) == 0 else char
        for char in (char.lower() if draw(st.booleans()) else char for char in text)
    ]
    for position, invisible in draw(
        st.lists(st.tuples(st.integers(0, len(chars)), st.sampled_from(INVISIBLE)), max_size=5)
    ):
        chars.insert(position, invisible)
    return PlantedNumber("".join(chars), compact.upper(), reason)


def _with_check_digits(country: str, bban: str) -> str:
    numeric = int("".join(str(int(char, 36)) for char in f"{bban}{country}00"))
    return f"{country}{98 - numeric % 97:02d}{bban}"


def _split(number: str, shape: tuple[int, ...]) -> list[str]:
    groups, start = [], 0
    for size in shape:
        groups.append(number[start : start + size])
        start += size
    return groups


def _fullwidth(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if char.isascii() and char.isalnum() else char


def _luhn_total(digits: str) -> int:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total


def _digits(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=n, max_size=n)


def _dates() -> st.SearchStrategy[str]:
    day = st.tuples(st.integers(1900, 2099), st.integers(1, 12), st.integers(1, 28))
    formats = st.sampled_from(["{y}-{m:02d}-{d:02d}", "{d:02d}/{m:02d}/{y}", "{m}/{d}/{y}", "{d:02d}.{m:02d}.{y}"])
    return st.tuples(day, formats, st.integers(1, 3)).map(
        lambda t: " ".join([t[1].format(y=t[0][0], m=t[0][1], d=t[0][2])] * t[2])
    )


def _times() -> st.SearchStrategy[str]:
    clock = st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59), st.integers(0, 999_999))
    return clock.map(lambda t: f"{t[0]:02d}:{t[1]:02d}:{t[2]:02d}.{t[3]:06d} ({t[0]}h{t[1]:02d})")


def _phone_numbers() -> st.SearchStrategy[str]:
    """National numbers of at most 12 digits, in the groupings countries print them in, one separator each."""
    shapes = st.sampled_from([(3, 3, 4), (3, 4, 4), (2, 2, 2, 2, 2), (3, 3, 2, 2), (2, 3, 2, 2), (4, 6), (3, 7)])
    written = st.tuples(shapes, st.sampled_from([" ", "-", ".", "/"])).flatmap(
        lambda t: st.tuples(*(_digits(n) for n in t[0])).map(t[1].join)
    )
    return st.tuples(st.integers(1, 999), written, st.booleans()).map(
        lambda t: f"+{t[0]} {t[1]}" if t[2] else f"0{t[1]}"
    )


def _order_numbers() -> st.SearchStrategy[str]:
    numbers = st.lists(st.integers(1, 999_999_999_999), min_size=1, max_size=5)
    return numbers.map(lambda ns: "orders " + ", ".join(f"#{n}" if n % 2 else str(n) for n in ns))


def _references() -> st.SearchStrategy[str]:
    return st.tuples(st.integers(1000, 9999), st.integers(1000, 9999)).map(lambda t: f"INV-{t[0]} for ACC-{t[1]}")


def _versions() -> st.SearchStrategy[str]:
    parts = st.lists(st.integers(0, 9999), min_size=2, max_size=4)
    return parts.map(lambda ps: "v" + ".".join(map(str, ps)))


def _quantities() -> st.SearchStrategy[str]:
    amounts = st.integers(0, 10**15)
    return st.tuples(amounts, st.sampled_from([",", " ", "."])).map(lambda t: f"{t[0]:,}".replace(",", t[1]) + " items")


def _ips() -> st.SearchStrategy[str]:
    return st.lists(st.integers(0, 255), min_size=4, max_size=4).map(lambda os: ".".join(map(str, os)))


def _hex_ids() -> st.SearchStrategy[str]:
    """Ids as ``agent.clock.RandomIds`` draws them, but for those with a run of 13 or more digits (one id in
    about 200): such a run is a card number when it passes Luhn, and ``RandomIds`` draws those again."""

    def drawn(value: uuid.UUID) -> str:
        hex_id = value.hex[:16]
        assume(max(len(run) for run in re.split(r"[a-f]", hex_id)) < 13)
        return f"s_{hex_id}"

    return st.uuids().map(drawn)
