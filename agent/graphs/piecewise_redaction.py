"""Redaction of text that arrives in pieces: a model's tokens, a tool call's streamed arguments.

``redact`` reads one string; a card number a model writes comes as ``4111``, `` 1111``, ... and no single piece
holds it. So each text (one message's content, one tool call's arguments) is accumulated, and a piece is let
out only once nothing that can still follow could make it part of a personal number, key or password:

- text is split into tokens at whitespace, read as ``agent.guardrails`` reads numbers (``fold_numbers``:
  other scripts' digits, look-alike letters, invisible characters);
- the last token is held while it may still grow; a token before it is held while it may stand inside one
  number with what follows, and the gap to the next held token is one a number may span (at most three
  blanks, no line break). A token may stand inside a number if it has a digit, if it is as short as an IBAN's
  letter group, or if it is nothing but an IBAN's letter groups and the separators that join them
  (``AAAA.AAAA``, ``-WEST``, a group of any length with invisible characters inside); or inside a private
  key's header if it is a word of capitals or ends in ``-----BEGIN``. Any other word, a line break or a wider
  gap ends every number, key and key header, so what stands before it is final;
- what is let out is redacted in a window that reaches ``_LOOKBACK`` characters back, so a password phrase
  or a number's start just before the boundary is read with it. In what was let out, a run of four blanks or
  more (spaces, tabs, line breaks) is kept as one line break, which every pattern reads the same way: a
  password phrase is read with its value however many blank lines stand between them.

Words that may each belong to a number (a run of ``tok``, ``a``, ``12``) would by those rules be held to the
message's end, and every piece would read them all again. So the hold is bounded too: once more than
``_LOOKBACK`` visible characters stand behind the last word, the redactor looks for a word start ``B`` at
least that far behind it where redacting the text around ``B`` whole gives the same as redacting each side of
``B`` apart. No personal number, key or password phrase (its long gaps shortened), nor a private key's header
of the usual words, is longer than ``_LOOKBACK`` visible characters, so one that crossed ``B`` would be in
that window, whole, and the two readings would differ; when they agree, what is before ``B`` is let out. Only
``_CONTEXT`` visible characters before what is let out are kept (the windows' context), so each piece costs
the piece and a few windows, however long the message.

The message's last piece lets everything out. The pieces let out, joined, are the whole text redacted.
"""

from __future__ import annotations

import re
from typing import Any

from agent.guardrails import redact
from agent.guardrails.number_fold import MARK, fold_numbers
from agent.guardrails.pasted_secrets import may_hold_a_secret

__all__ = ("PiecewiseRedactor",)

_LOOKBACK = 64
"""In visible characters (invisible ones read through): longer than any personal number with its separators (an
IBAN: 34 characters in groups of four, up to three blanks between them) and the context its patterns read."""
_CONTEXT = 2 * _LOOKBACK
"""Visible characters kept before what is let out: the windows' context on the left."""
_TOKEN = re.compile(r"\S+")
_HARD_GAP = re.compile(r"[^ \t]|[ \t]{4}")
"""In a gap between two tokens: what no number spans (a line break, more than three blanks)."""
_SHORT_GROUP = 4
_DIGIT = re.compile(r"[0-9]")
_NOT_IN_AN_IBAN = re.compile(r"[^A-Za-z\x00/_.,-]|(?<![A-Za-z\x00])[A-Za-z]{5,}(?![A-Za-z\x00])")
"""What a token without a digit cannot hold if it stands inside an IBAN, which has letter groups of four (or of any
size with invisible characters inside) joined by separators: another character, a longer group."""
_KEY_HEADER_WORD = re.compile(r"[A-Z]+|.*-----BEGIN")
"""A token a private key's header (``-----BEGIN RSA PRIVATE KEY-----``) may go on after."""
_LONG_GAP = re.compile(r"[ \t\n\r]{4,}")
_BLANKS = " \t\n\r"
"""Every blank ``fold_numbers`` leaves (it reads other spaces and control characters as these or ``MARK``)."""


class _Text:
    __slots__ = ("folded", "joined", "last_word", "released", "text")

    def __init__(self) -> None:
        self.text = ""
        """The part of the text not let out yet, after ``_CONTEXT`` visible characters of what was."""
        self.folded = ""
        """``fold_numbers(text)``, grown piece by piece."""
        self.released = 0
        """Where in ``text`` what was let out (redacted) ends."""
        self.last_word = 0
        """Where the last word read starts: words before it were read already."""
        self.joined = 0
        """Where the run of words that may join the last word read starts."""

    def append(self, piece: str) -> None:
        self.text += piece
        self.folded += fold_numbers(piece)

    def final_end(self) -> int:
        """How much of the text nothing that follows can change: the words after ``last_word`` are read, and
        the run before it is known."""
        folded = self.folded
        words = [word.span() for word in _TOKEN.finditer(folded, self.last_word)]
        if not words or _HARD_GAP.search(folded, words[-1][1]):
            self.last_word = self.joined = len(folded)
            return self.joined
        last_word = joined = words[-1][0]
        for start, end in reversed(words[:-1]):  # each word before the one ``joined`` starts
            if _HARD_GAP.search(folded, end, joined) or not _may_join(folded[start:end]):
                break
            joined = start
        else:
            joined = min(joined, self.joined)
        self.last_word, self.joined = last_word, joined
        return max(joined, self.released)

    def release(self, end: int) -> None:
        """Let out what is before ``end``: keep ``_CONTEXT`` visible characters of it, its long gaps shortened
        (those let out before were, so a long gap reaching into this part starts at most three before it)."""
        shift = 0
        if _LONG_GAP.search(self.folded, max(0, self.released - 3), end):
            text, folded = _shortened(self.text, self.folded, end), _shortened(self.folded, self.folded, end)
            self.text, self.folded = text + self.text[end:], folded + self.folded[end:]
            shift, end = end - len(folded), len(folded)
        kept = _back(self.folded, end, _CONTEXT)
        self.text, self.folded = self.text[kept:], self.folded[kept:]
        self.released = end - kept
        self.last_word = max(self.released, self.last_word - shift - kept)
        self.joined = max(self.released, self.joined - shift - kept)


class PiecewiseRedactor:
    """The texts being streamed, each under a key of the caller's (a message id and a field)."""

    def __init__(self) -> None:
        self._texts: dict[Any, _Text] = {}

    def feed(self, key: Any, piece: str, *, last: bool = False) -> str:
        """What of ``key``'s text may be let out now that ``piece`` arrived, redacted; all of the rest when
        ``last``."""
        held = self._texts.get(key)
        if held is None:
            held = self._texts[key] = _Text()
        held.append(piece)
        start = held.released
        text, folded = held.text, held.folded
        if last:
            end = len(text)
            del self._texts[key]
        else:
            end = held.final_end()
            if len(folded) - start > 2 * _LOOKBACK:  # else too short a hold for _bounded_end to look for a cut
                end = max(end, _bounded_end(text, folded, start))
            if end > start:
                held.release(end)
        if end <= start:
            return ""
        window = _back(folded, start, _LOOKBACK)
        if _DIGIT.search(folded, window, end) is None and not may_hold_a_secret(text[window:end]):
            return text[start:end]  # nothing in the window may be masked (a model's usual words)
        before = redact(text[window:start])
        after = redact(text[window:end])
        if after.startswith(before):
            return after[len(before) :]
        # A mask reaching back into what was let out is what the rules above exclude; if one did, the mask is
        # let out again rather than the rest of the number.
        return after[_alike(before, after) :]

    @property
    def holding(self) -> int:
        """How many texts have pieces held back."""
        return len(self._texts)

    @property
    def kept(self) -> int:
        """Characters kept over all texts: what is held back, and the context before it."""
        return sum(len(held.text) for held in self._texts.values())


def _may_join(token: str) -> bool:
    """Whether ``token`` (folded) may stand inside a number or a key's header that goes on after it; a model
    writes the same words again and again, so each is read once; a word longer than ``_LOOKBACK`` is read each time,
    so what is kept stays small."""
    if len(token) > _LOOKBACK:
        return _reads_as_joining(token)
    joins = _joining.get(token)
    if joins is None:
        if len(_joining) >= _JOINING_KEPT:
            _joining.clear()
        joins = _joining[token] = _reads_as_joining(token)
    return joins


_JOINING_KEPT = 4096
_joining: dict[str, bool] = {}


def _reads_as_joining(token: str) -> bool:
    if _DIGIT.search(token) or len(token.replace(MARK, "")) <= _SHORT_GROUP or _KEY_HEADER_WORD.fullmatch(token):
        return True
    return _NOT_IN_AN_IBAN.search(token) is None


def _alike(before: str, after: str) -> int:
    """How many characters ``before`` and ``after`` start with alike."""
    pairs = enumerate(zip(before, after, strict=False))
    return next((index for index, (old, new) in pairs if old != new), min(len(before), len(after)))


def _shortened(text: str, folded: str, end: int) -> str:
    """``text[:end]`` with each of ``folded``'s long gaps there as one line break."""
    parts: list[str] = []
    cursor = 0
    for gap in _LONG_GAP.finditer(folded, 0, end):
        parts += [text[cursor : gap.start()], "\n"]
        cursor = gap.end()
    parts.append(text[cursor:end])
    return "".join(parts)


def _bounded_end(text: str, folded: str, start: int) -> int:
    """A word start ``_LOOKBACK`` visible characters or more behind the last word (which may still grow) where
    redacting around it whole is redacting either side of it apart, if the hold is long enough to look for one;
    else ``start``."""
    growing = max(map(folded.rfind, _BLANKS)) + 1
    limit = _back(folded, growing, _LOOKBACK)
    if _back(folded, limit, _LOOKBACK) <= start:
        return start
    cut = max(folded.rfind(blank, start, limit) for blank in _BLANKS) + 1
    if cut <= start:
        return start
    window = text[_back(folded, cut, _CONTEXT) : _forward(folded, cut, _LOOKBACK)]
    split = cut - _back(folded, cut, _CONTEXT)
    return cut if redact(window) == redact(window[:split]) + redact(window[split:]) else start


def _back(folded: str, position: int, visible: int) -> int:
    """Where the text that ends at ``position`` and holds ``visible`` visible characters starts (or 0)."""
    begin = max(0, position - visible)
    marks = folded.count(MARK, begin, position)
    while marks and begin > 0:
        further = max(0, begin - marks)
        marks = folded.count(MARK, further, begin)
        begin = further
    return begin


def _forward(folded: str, position: int, visible: int) -> int:
    """Where the text that starts at ``position`` and holds ``visible`` visible characters ends (or the end)."""
    end = min(len(folded), position + visible)
    marks = folded.count(MARK, position, end)
    while marks and end < len(folded):
        further = min(len(folded), end + marks)
        marks = folded.count(MARK, end, further)
        end = further
    return end
