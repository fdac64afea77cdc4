"""The approvals inbox: every run waiting for a person's decision that a principal may take, on any instance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.graphs import approval_for
from contracts import ApprovalRequest

if TYPE_CHECKING:
    from api.runs.access import AccessPolicy
    from api.runs.log.protocols import EventLog
    from api.runs.principal import Principal
    from contracts import PendingApproval

__all__ = ("ApprovalInbox",)


class ApprovalInbox:
    def __init__(self, log: EventLog, access: AccessPolicy) -> None:
        self._log = log
        self._access = access

    async def pending_approvals(self, principal: Principal) -> list[ApprovalRequest]:
        """The approvals waiting that ``principal`` may decide, oldest first."""
        requests = []
        for record in await self._log.waiting_runs():
            snapshot, pending = record.snapshot, record.snapshot.pending_approval
            if pending is None or not self._access.may_decide(principal, record):
                continue
            graph = record.graph
            asked: list[tuple[PendingApproval, str | None]] = (
                [(approval_for(interrupt), interrupt.id) for interrupt in graph.interrupts]
                if graph is not None and graph.interrupts
                else [(pending, None)]
            )
            requests += [
                ApprovalRequest(
                    run_id=snapshot.run_id,
                    session_id=snapshot.session_id,
                    approval_id=approval.approval_id,
                    action=approval.action,
                    summary=approval.summary,
                    requested_by=record.owner,
                    requested_at=snapshot.updated_at,
                    graph_id=None if graph is None else graph.graph_id,
                    assistant_id=None if graph is None else graph.assistant_id,
                    interrupt_id=interrupt_id,
                )
                for approval, interrupt_id in asked
            ]
        return requests
