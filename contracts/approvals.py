"""``GET /approvals``: the pending approvals the caller may decide."""

from __future__ import annotations

from typing import Annotated

import msgspec

from contracts.ids import RunId, SessionId

__all__ = ("ApprovalRequest", "PendingApprovals")


class ApprovalRequest(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A paused run waiting for a person to approve or reject its action."""

    run_id: RunId
    session_id: SessionId
    approval_id: str
    action: Annotated[str, msgspec.Meta(description="The action to approve, e.g. `issue_refund`.")]
    summary: Annotated[str, msgspec.Meta(description="One line for the person who decides.")]
    requested_by: Annotated[
        str | None, msgspec.Meta(description="The subject whose turn proposed it; `null` when identity is off.")
    ]
    requested_at: Annotated[str, msgspec.Meta(description="When the run paused (RFC 3339, UTC).")]
    graph_id: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "A registered graph's interrupt: the graph whose run it is, decided through the Agent Protocol "
                '(`POST /threads/{session_id}/runs` with `assistant_id` and `command.resume: {"decision": ...}`), '
                "not `POST /chat/resume`. Left out for the support agent's `/chat` approvals."
            )
        ),
    ] = None
    assistant_id: Annotated[
        str | None,
        msgspec.Meta(
            description="A registered graph's interrupt: the assistant its run was started with. Left out else."
        ),
    ] = None
    interrupt_id: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "A registered graph's interrupt: LangGraph's id of the interrupt this approval answers. A run may wait "
                "at several at once, each listed on its own; answer one alone with `command.resume: "
                '{"<interrupt_id>": {"decision": ...}}` (the others go on waiting). Left out else.'
            )
        ),
    ] = None


class PendingApprovals(msgspec.Struct, kw_only=True):
    approvals: list[ApprovalRequest]
    """Oldest first."""
