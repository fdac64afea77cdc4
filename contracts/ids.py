"""Identifier types shared by requests, responses and events."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ("CLIENT_ID_PATTERN", "ID_PATTERN", "ClientId", "RunId", "SessionId")

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

CLIENT_ID_PATTERN = r"^(?!.*\n)[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
"""What an id a client makes up and the service echoes may be (an AG-UI ``runId``, a message's id, a tool call's):
1-128 of ``[A-Za-z0-9_.:-]``, which a UUID, a nanoid, ``call_…`` and ``toolu_…`` fit. One shaped like a card
number, a national id, a bank account or a key is refused besides (``id_refused``): never stored, never echoed."""

ClientId = Annotated[
    str,
    msgspec.Meta(
        pattern=CLIENT_ID_PATTERN,
        description=(
            "An id of the client's: 1-128 of [A-Za-z0-9_.:-]; one shaped like a card number, national id, bank "
            "account or key is refused (422 `id_refused`)."
        ),
        examples=["6f1c0b7e-2f7a-4c55-9d1e-0c3b0f6b9a11"],
    ),
]
