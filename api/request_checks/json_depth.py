"""How deep a JSON text nests, found without parsing it: parsing is what a deep text breaks.

msgspec decodes nested arrays and objects recursively (Litestar decodes every body into plain Python values
first), so ten thousand ``[`` under the size limit end in a ``RecursionError``. A scan of the bytes, counting
brackets outside strings, bounds the depth first, in one pass whatever the text. For a text that is valid JSON up
to any point, the scan and a parser agree on which brackets are structure up to that point; past an error the
scan may count brackets a parser never reaches, which refuses only what the parser would refuse anyway.
"""

from __future__ import annotations

import re

__all__ = ("MAX_JSON_DEPTH", "nests_deeper_than")

MAX_JSON_DEPTH = 64
"""Levels of arrays and objects a request body may nest: far beyond any request of the contract (AG-UI's free
``state`` and ``forwardedProps`` included), far below the parser's recursion limit."""

_STRING = re.compile(rb'"[^"\\]*(?:\\[\s\S]?[^"\\]*)*"?')
"""A string, or what a parser would read as one: to its closing quote, or to the end of an unterminated one."""
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_OPENERS = frozenset(b"[{")


def nests_deeper_than(text: bytes, limit: int) -> bool:
    """Whether the arrays and objects of ``text`` nest more than ``limit`` levels deep."""
    if text.count(b"[") + text.count(b"{") <= limit:
        return False  # the usual body: too few brackets to nest that deep, wherever they are
    depth = 0
    for bracket in _STRING.sub(b"", text).translate(None, _NOT_BRACKETS):
        if bracket in _OPENERS:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False
