"""Who may do what with a run: object-level authorization (OWASP API1) and the approval policy.

Ownership is the one rule of ``api.runs.log.ownership`` (``SessionAccess``), for sessions and runs alike.

With identity off there is one user, ``ANONYMOUS``, who may do everything. With identity on, sessions and
runs belong to the subject that started them and do not exist for anyone else; approvals are decided by
the run's owner, or, when ``HARNESS_APPROVER_ROLE`` is set, only by subjects with that role, for the runs
of any subject. An approver may read the runs it may decide (waiting ones) and the ones it decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from api.runs.log.ownership import SessionAccess

if TYPE_CHECKING:
    from api.runs.log.records import RunRecord
    from api.runs.principal import Principal

__all__ = ("AccessPolicy",)


class AccessPolicy:
    def __init__(self, *, approver_role: str | None, legacy_subject: str | None) -> None:
        self.approver_role = approver_role
        self._legacy_subject = legacy_subject

    def session_access(self, principal: Principal) -> SessionAccess:
        return SessionAccess(
            owner=principal.subject,
            any_session=principal.anonymous,
            unowned_sessions=principal.subject is not None and principal.subject == self._legacy_subject,
        )

    def owns(self, principal: Principal, record: RunRecord) -> bool:
        """Whether the run is ``principal``'s: the session rule, applied to the subject who started the run."""
        return self.session_access(principal).may_continue(record.owner)

    def is_approver(self, principal: Principal) -> bool:
        return principal.anonymous or (self.approver_role is not None and self.approver_role in principal.roles)

    def may_decide(self, principal: Principal, record: RunRecord) -> bool:
        if self.approver_role is None:
            return self.owns(principal, record)
        return self.is_approver(principal)

    def may_read(self, principal: Principal, record: RunRecord) -> bool:
        if self.owns(principal, record):
            return True
        if self.approver_role is None or not self.is_approver(principal):
            return False
        snapshot = record.snapshot
        return snapshot.status == "waiting" or snapshot.decided_by == principal.subject
