"""``POST /runs/{run_id}/feedback``: a person's thumbs up or down on a finished run, with an optional note.

Feedback is a label: ``harness eval calibrate`` measures each judge's agreement with it (docs/evaluation.md).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from contracts.ids import RunId, SessionId

__all__ = ("FEEDBACK_NOTE_MAX", "FeedbackRequest", "FeedbackScore", "RunFeedback")

FEEDBACK_NOTE_MAX = 2000
"""The longest note, in characters."""

FeedbackScore = Annotated[
    Literal["up", "down"], msgspec.Meta(description="`up`: the answer was good; `down`: it was not.")
]
Note = Annotated[
    str,
    msgspec.Meta(
        max_length=FEEDBACK_NOTE_MAX,
        description=(
            f"Why, in the person's words: at most {FEEDBACK_NOTE_MAX} characters. Stored redacted as a message is "
            "(card numbers, keys and personal numbers removed); a note of only whitespace is no note."
        ),
    ),
]


class FeedbackRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A thumbs up or down on a finished run of the caller's."""

    score: FeedbackScore
    note: Note | None = None

    def __post_init__(self) -> None:
        if self.note is not None:
            self.note = self.note.strip() or None


class RunFeedback(msgspec.Struct, kw_only=True):
    """The feedback kept for a run: the latest one given replaces any before it."""

    run_id: RunId
    session_id: SessionId
    score: FeedbackScore
    note: Annotated[str | None, msgspec.Meta(description="The note as stored: redacted; `null` when none.")]
    at: Annotated[str, msgspec.Meta(description="When it was given (RFC 3339, UTC).")]
