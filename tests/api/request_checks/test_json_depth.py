from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from api.request_checks.json_depth import MAX_JSON_DEPTH, nests_deeper_than

TRICKY_TEXT = st.text(alphabet='[]{}"\\ abc\n\u2028', max_size=8)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY_TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TRICKY_TEXT, children, max_size=3),
    max_leaves=40,
)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


def nested(levels: int, inner: Any = None) -> Any:
    for level in range(levels):
        inner = [inner] if level % 2 else {"k[": inner}
    return inner


@settings(max_examples=400)
@given(JSON_VALUES, st.integers(min_value=0, max_value=6), st.booleans())
def test_the_scan_measures_what_a_parser_nests(value: Any, limit: int, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert nests_deeper_than(text, limit) is (depth(value) > limit)


@given(st.integers(min_value=MAX_JSON_DEPTH - 3, max_value=MAX_JSON_DEPTH + 3))
def test_the_limit_is_exact(levels: int) -> None:
    text = json.dumps(nested(levels, "]]]]}}}}")).encode()
    assert nests_deeper_than(text, MAX_JSON_DEPTH) is (levels > MAX_JSON_DEPTH)


def test_brackets_in_strings_are_text_and_an_unterminated_string_runs_to_the_end() -> None:
    assert not nests_deeper_than(json.dumps({"message": "[" * 5000}).encode(), 2)
    assert not nests_deeper_than(b'["' + b"[" * 5000, 2)  # a parser reads the rest as a string, then fails
    assert nests_deeper_than(b"[" * 5000 + b'"', 2)  # the brackets come first: a parser would recurse into them


def scanned_byte_by_byte(text: bytes, limit: int) -> bool:
    """The one pass the scan stands for: a byte at a time, a string to its closing quote (or the end), a backslash
    in a string taking the byte after it, a bracket outside a string opening or closing a level."""
    depth, in_string, escaped = 0, False, False
    for byte in text:
        if in_string:
            in_string, escaped = (escaped or byte != ord('"')), (not escaped and byte == ord("\\"))
        elif byte == ord('"'):
            in_string = True
        elif byte in b"[{":
            depth += 1
            if depth > limit:
                return True
        elif byte in b"]}":
            depth -= 1
    return False


ANY_BYTES = st.lists(st.sampled_from([b"[", b"]", b"{", b'"', b"\\", b"\xff"]), max_size=12).map(b"".join) | st.binary()


DEEP = b"[" * (MAX_JSON_DEPTH + 1)
LONG_FILLERS = (b'"' + b'\\"' * 30_000, b"\\" * 60_000, b'"\\', b"\xff\xfe", b"]" * 60_000)


@settings(max_examples=400)
@given(ANY_BYTES, st.integers(min_value=0, max_value=3))
@example(b'"\\"[["', 0)  # an escaped quote does not end the string
@example(b'"\\\\"[', 0)  # an escaped backslash does not escape the quote after it
@example(b'"[\\', 0)  # nor does a backslash at the end
def test_any_bytes_are_scanned_in_one_pass(text: bytes, limit: int) -> None:
    assert nests_deeper_than(text, limit) is scanned_byte_by_byte(text, limit)


def test_long_runs_of_quotes_and_backslashes_are_scanned_as_one_pass_scans_them() -> None:
    """Brackets before the filler nest whatever it holds; after it, they are text inside the unterminated string
    (the first and third), structure (the second and fourth), or levels below the closed ones (the fifth)."""
    before = [nests_deeper_than(DEEP + filler, MAX_JSON_DEPTH) for filler in LONG_FILLERS]
    after = [nests_deeper_than(filler + DEEP, MAX_JSON_DEPTH) for filler in LONG_FILLERS]
    assert before == [True] * len(LONG_FILLERS)
    assert after == [False, True, False, True, False]
    assert after == [scanned_byte_by_byte(filler + DEEP, MAX_JSON_DEPTH) for filler in LONG_FILLERS]
