"""Who may continue a session: the one ownership rule, applied by every log as it begins a run.

A session belongs to the subject whose turn first named it. ``SessionAccess.may_continue`` is the rule; the
access policy (``api.runs.access``) asks it for runs too, and the Redis ``BEGIN`` script's flags are held to
it by a test (tests/api/runs/log/test_redis_begin.py).
"""

from __future__ import annotations

import msgspec

__all__ = ("SessionAccess",)


class SessionAccess(msgspec.Struct, frozen=True, kw_only=True):
    """Who starts a turn, and which existing sessions they may continue."""

    owner: str | None
    """The caller's subject; a new session becomes theirs."""
    any_session: bool = False
    """Identity is off: every session is the one user's."""
    unowned_sessions: bool = False
    """The caller is ``HARNESS_AUTH_LEGACY_SUBJECT``: sessions from before identity was on are theirs too."""

    def may_continue(self, owner: str | None) -> bool:
        """Whether a session owned by ``owner`` (None: created with identity off) may take this turn."""
        return self.any_session or owner == self.owner or (owner is None and self.unowned_sessions)
