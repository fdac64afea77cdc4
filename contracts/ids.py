"""Identifier types shared by requests, responses and events."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ("ID_PATTERN", "RunId", "SessionId")

ID_PATTERN = r"^(?!.*\n)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
r"""What a run or session id may be: 1-64 of ``[A-Za-z0-9_-]``, not starting with ``_`` or ``-``.

The pattern is read by two engines: msgspec validates with Python's ``re.search``, whose ``$`` also matches
before a final newline, and the OpenAPI document and JSON schemas publish it as an ECMA-262 regex, where
``\Z`` does not exist. The lookahead (no newline anywhere) makes both read it as a full match, and so does
every pattern made from this one by replacing its ``$``.
"""

SessionId = Annotated[
    str,
    msgspec.Meta(
        pattern=ID_PATTERN,
        description="A session is one conversation; its turns share history. 1-64 of [A-Za-z0-9_-].",
        examples=["s_4f9c2a7d1e3b4c5a"],
    ),
]
RunId = Annotated[
    str,
    msgspec.Meta(
        pattern=ID_PATTERN,
        description="A run is one turn, from the user's message to its terminal event, pauses included.",
        examples=["r_0c1d2e3f4a5b6c7d"],
    ),
]
