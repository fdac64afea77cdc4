"""Request bodies of ``POST /chat`` and ``POST /chat/resume``.

The Structs reject unknown fields, so a typo in a field name is a 422, not a silently ignored field.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from contracts.ids import RunId, SessionId

__all__ = ("ApprovalDecision", "ChatRequest", "ResumeRequest")

MESSAGE_MAX_CHARS = 4000
WHITESPACE = r"\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""What ``str.strip()`` removes, as a regex class body: ``\\s`` differs between Python and JSON Schema regexes."""

_SPACE = f"[{WHITESPACE}]"
_INK = f"[^{WHITESPACE}]"

ApprovalDecision = Literal["approve", "reject"]

Message = Annotated[
    str,
    msgspec.Meta(
        # 1..MESSAGE_MAX_CHARS characters once surrounding whitespace is trimmed; JSON Schema cannot trim,
        # so the pattern says it: first and last non-space characters at most 4000 characters apart.
        pattern=rf"^{_SPACE}*{_INK}(?:[\s\S]{{0,{MESSAGE_MAX_CHARS - 2}}}{_INK})?{_SPACE}*$",
        description="The user's message: 1 to 4000 characters after surrounding whitespace is trimmed.",
        examples=["How do I reset my password?"],
    ),
]


class ChatRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One user turn."""

    message: Message
    session_id: Annotated[
        SessionId | None,
        msgspec.Meta(
            description=(
                "The session (conversation) to continue; the server creates one when missing and returns it. An id "
                "shaped like a card number, a national id, a bank account or a key is refused (422 "
                "`session_id_refused`), never stored."
            )
        ),
    ] = None

    def __post_init__(self) -> None:
        self.message = self.message.strip()


class ResumeRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A human's decision on a paused run's pending approval."""

    run_id: RunId
    approval_id: Annotated[
        str, msgspec.Meta(min_length=1, max_length=64, description="From `pending_approval.approval_id`.")
    ]
    decision: ApprovalDecision
    comment: Annotated[str, msgspec.Meta(max_length=1000, description="Optional note for the audit trail.")] | (
        None
    ) = None
    session_id: Annotated[
        SessionId | None, msgspec.Meta(description="When given, it must be the run's session (else 404).")
    ] = None
