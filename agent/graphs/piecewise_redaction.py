"""Redaction of text that arrives in pieces: a model's tokens, a tool call's streamed arguments.

``redact`` reads one string; a card number a model writes comes as ``4111``, `` 1111``, ... and no single piece
holds it. So each text (one message's content, one tool call's arguments) is accumulated, and a piece is let
out only once nothing that can still follow could make it part of a personal number, key or password:

- text is split into tokens at whitespace, read as ``agent.guardrails`` reads numbers (``fold_numbers``:
  other scripts' digits, look-alike letters, invisible characters);
- the last token is held while it may still grow; a token before it is held while it may belong to one number
  with what follows (it has a digit, or it is as short as an IBAN's letter group) and the gap to the next held
  token is one a number may span (at most three blanks, no line break). A longer word without a digit, a line
  break or a wider gap ends every number, key and password value, so what stands before it is final;
- what is let out is redacted in a window that reaches ``_LOOKBACK`` characters back, so a password phrase
  or a number's start just before the boundary is read with it.

The message's last piece lets everything out. The pieces let out, joined, are the whole text redacted.
"""

from __future__ import annotations

import re
from typing import Any

from agent.guardrails import redact
from agent.guardrails.number_fold import MARK, fold_numbers

__all__ = ("PiecewiseRedactor",)

_LOOKBACK = 64
"""Longer than any personal number with its separators (an IBAN: 34 characters in groups of four)."""
_TOKEN = re.compile(r"\S+")
_HARD_GAP = re.compile(r"[^ \t]|[ \t]{4}")
"""In a gap between two tokens: what no number spans (a line break, more than three blanks)."""
_SHORT_GROUP = 4
_DIGIT = re.compile(r"[0-9]")


class _Text:
    __slots__ = ("released", "text")

    def __init__(self) -> None:
        self.text = ""
        self.released = 0
        """How much of ``text`` was let out (redacted)."""


class PiecewiseRedactor:
    """The texts being streamed, each under a key of the caller's (a message id and a field)."""

    def __init__(self) -> None:
        self._texts: dict[Any, _Text] = {}

    def feed(self, key: Any, piece: str, *, last: bool = False) -> str:
        """What of ``key``'s text may be let out now that ``piece`` arrived, redacted; all of the rest when
        ``last``."""
        held = self._texts.setdefault(key, _Text())
        held.text += piece
        start = held.released
        end = len(held.text) if last else start + _final_length(held.text[start:])
        if last:
            del self._texts[key]
        if end <= start:
            return ""
        window = max(0, start - _LOOKBACK)
        before = redact(held.text[window:start])
        after = redact(held.text[window:end])
        held.released = end
        return after[len(before) :] if after.startswith(before) else redact(held.text[start:end])

    @property
    def holding(self) -> int:
        """How many texts have pieces held back."""
        return len(self._texts)


def _final_length(tail: str) -> int:
    """How much of ``tail`` (what is not let out yet) nothing that follows can change."""
    folded = fold_numbers(tail)
    tokens = list(_TOKEN.finditer(folded))
    if not tokens or _HARD_GAP.search(folded, tokens[-1].end()):
        return len(tail)
    held = tokens[-1].start()
    for token, following in zip(reversed(tokens[:-1]), reversed(tokens[1:]), strict=True):
        if _HARD_GAP.search(folded, token.end(), following.start()) or not _may_join(token.group()):
            break
        held = token.start()
    return held


def _may_join(token: str) -> bool:
    return bool(_DIGIT.search(token)) or len(token.replace(MARK, "")) <= _SHORT_GROUP
