"""``POST /runs/{run_id}/feedback``: a person's thumbs up or down on a finished run, with an optional comment.

Feedback is a label: ``harness eval calibrate`` measures each judge's agreement with it (docs/evaluation.md).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from contracts.ids import RunId, SessionId

__all__ = ("FEEDBACK_COMMENT_MAX", "FeedbackRequest", "FeedbackScore", "RunFeedback")

FEEDBACK_COMMENT_MAX = 2000
"""The longest comment, in characters."""

FeedbackScore = Annotated[
    Literal[0, 1], msgspec.Meta(description="`1`: the answer was good (thumbs up); `0`: it was not (thumbs down).")
]
Comment = Annotated[
    str,
    msgspec.Meta(
        max_length=FEEDBACK_COMMENT_MAX,
        description=(
            f"Why, in the person's words: at most {FEEDBACK_COMMENT_MAX} characters. Stored redacted as a message is "
            "(card numbers, keys and personal numbers removed); a comment of only whitespace is no comment."
        ),
    ),
]


class FeedbackRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A thumbs up or down on a finished run of the caller's."""

    score: FeedbackScore
    comment: Comment | None = None

    def __post_init__(self) -> None:
        if self.comment is not None:
            self.comment = self.comment.strip() or None


class RunFeedback(msgspec.Struct, kw_only=True):
    """The feedback kept for a run: the latest one given replaces any before it."""

    run_id: RunId
    session_id: SessionId
    score: FeedbackScore
    comment: Annotated[str | None, msgspec.Meta(description="The comment as stored: redacted; `null` when none.")]
    at: Annotated[str, msgspec.Meta(description="When it was given (RFC 3339, UTC).")]
