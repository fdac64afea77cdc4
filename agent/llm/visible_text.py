"""The visible text of a structured answer, decoded while the model is still writing it.

A model streams ``{"kind": "answer", "text": "Open Settings \\u2192 Security"}`` in arbitrary pieces.
``VisibleText.feed`` returns, for each piece, only the new characters of the ``text`` value: keys in any
order, whitespace anywhere, escapes and surrogate pairs split across pieces. A model that does not answer
with a JSON object is shown as it writes (trailing whitespace held back until more text follows).

When the object names its ``kind`` before its ``text`` (the answer schema puts it first) and that kind is
one to hold (``action_proposal``), the text is not shown while it streams: whether the action can happen
is only known once the whole answer is in, and a proposal that cannot happen must not have promised it.
"""

from __future__ import annotations

__all__ = ("VisibleText",)

_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WHITESPACE = " \t\r\n"


class VisibleText:
    """An incremental extractor of the top-level ``text`` string of a JSON object."""

    def __init__(self, hold_kinds: frozenset[str] = frozenset({"action_proposal"})) -> None:
        self._hold_kinds = hold_kinds
        self._mode = "detect"  # detect | fence | json | plain
        self._state = "key_or_end"  # json: key_or_end, key, colon, value, text, kind, skip, done
        self._key: list[str] = []
        self._escape: str | None = None  # pending escape sequence inside a string, without the backslash
        self._high_surrogate: int | None = None
        self._depth = 0
        self._in_string = False
        self._text_seen = False
        self._held = ""  # plain mode: trailing whitespace not shown yet
        self._kind: list[str] | None = None  # the top-level "kind" value, once it has been read
        self._holding = False
        self.withheld: list[str] = []
        """Text of a held kind, decoded but not shown."""
        self.shown = ""
        """Everything returned so far."""

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for char in piece:
            self._step(char, out)
        new = "".join(out)
        self.shown += new
        return new

    def _step(self, char: str, out: list[str]) -> None:
        if self._mode == "detect":
            if char in _WHITESPACE:
                return
            if char == "{":
                self._mode = "json"
            elif char == "`":
                self._mode = "fence"
            else:
                self._mode = "plain"
                self._plain(char, out)
        elif self._mode == "fence":
            if char == "{":
                self._mode = "json"
        elif self._mode == "plain":
            self._plain(char, out)
        else:
            self._json(char, out)

    def _plain(self, char: str, out: list[str]) -> None:
        if char in _WHITESPACE:
            self._held += char
            return
        out.append(self._held)
        self._held = ""
        out.append(char)

    def _json(self, char: str, out: list[str]) -> None:
        state = self._state
        if state == "key_or_end":
            if char == '"':
                self._state, self._key = "key", []
            elif char == "}":
                self._state = "done"
        elif state == "key":
            if self._escape is not None or char == "\\":
                self._key.append(char)  # keys are compared raw; an escaped "text" key is not ours
                self._escape = None if self._escape is not None else ""
            elif char == '"':
                self._state = "colon"
            else:
                self._key.append(char)
        elif state == "colon":
            if char == ":":
                self._state = "value"
        elif state == "value":
            if char in _WHITESPACE:
                return
            key = "".join(self._key)
            if char == '"' and key == "text" and not self._text_seen:
                self._state, self._text_seen = "text", True
                self._holding = self._kind is not None and "".join(self._kind) in self._hold_kinds
            elif char == '"' and key == "kind" and self._kind is None:
                self._state, self._kind = "kind", []
            else:
                self._state, self._depth, self._in_string = "skip", 0, False
                self._skip(char)
        elif state == "text":
            self._text_char(char, self.withheld if self._holding else out)
        elif state == "kind":
            if char == '"':
                self._state, self._depth, self._in_string = "skip", 0, False
            else:
                assert self._kind is not None
                self._kind.append(char)
        elif state == "skip":
            self._skip(char)

    def _text_char(self, char: str, out: list[str]) -> None:
        if self._escape is None:
            if char == "\\":
                self._escape = ""
            elif char == '"':
                self._flush_surrogate(out)
                self._state = "skip"
                self._depth, self._in_string = 0, False
            else:
                self._flush_surrogate(out)
                out.append(char)
            return
        self._escape += char
        if self._escape[0] != "u":
            self._flush_surrogate(out)
            out.append(_SIMPLE_ESCAPES.get(self._escape, self._escape))
            self._escape = None
        elif len(self._escape) == 5:
            digits = self._escape[1:]
            self._escape = None
            if all(c in "0123456789abcdefABCDEF" for c in digits):
                self._code_unit(int(digits, 16), out)
            else:
                self._flush_surrogate(out)
                out.append("\ufffd")

    def _code_unit(self, unit: int, out: list[str]) -> None:
        if 0xD800 <= unit <= 0xDBFF:
            self._flush_surrogate(out)
            self._high_surrogate = unit
        elif 0xDC00 <= unit <= 0xDFFF and self._high_surrogate is not None:
            out.append(chr(0x10000 + ((self._high_surrogate - 0xD800) << 10) + (unit - 0xDC00)))
            self._high_surrogate = None
        else:
            self._flush_surrogate(out)
            out.append(chr(unit) if not 0xD800 <= unit <= 0xDFFF else "\ufffd")

    def _flush_surrogate(self, out: list[str]) -> None:
        if self._high_surrogate is not None:
            out.append("\ufffd")
            self._high_surrogate = None

    def _skip(self, char: str) -> None:
        if self._in_string:
            if self._escape is not None:
                self._escape = None
            elif char == "\\":
                self._escape = ""
            elif char == '"':
                self._in_string = False
        elif char == '"':
            self._in_string = True
        elif char in "[{":
            self._depth += 1
        elif char in "]}" and self._depth > 0:
            self._depth -= 1
        elif self._depth == 0 and char == ",":
            self._state = "key_or_end"
        elif self._depth == 0 and char == "}":
            self._state = "done"
