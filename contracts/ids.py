"""Identifier types shared by requests, responses and events."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ("ID_PATTERN", "RunId", "SessionId")

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
"""What a run or session id may be: 1-64 of ``[A-Za-z0-9_-]``, not starting with ``_`` or ``-``."""

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
