"""``ChatResponse``: the JSON contract of ``POST /chat`` and ``POST /chat/resume``.

The same Struct is the ``response`` of the ``turn_completed`` event, so the JSON and the streaming
paths cannot drift.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from contracts.ids import RunId, SessionId

__all__ = (
    "Answer",
    "AnswerKind",
    "ChatResponse",
    "Citation",
    "NodeName",
    "PendingApproval",
    "TokenCounts",
    "TraceEntry",
    "TurnStatus",
    "Usage",
)

TurnStatus = Literal["completed", "refused", "paused", "rejected"]
AnswerKind = Literal[
    "answer", "no_answer", "refusal", "action_proposal", "action_result", "action_rejected", "action_not_possible"
]
NodeName = Literal[
    "guardrail_pre",
    "retrieve_context",
    "generate_answer",
    "human_approval",
    "execute_action",
    "guardrail_post",
]

NonNegativeInt = Annotated[int, msgspec.Meta(ge=0)]


class Answer(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What the agent says to the user."""

    kind: Annotated[
        AnswerKind,
        msgspec.Meta(
            description=(
                "`answer` (grounded in the knowledge base), `no_answer` (nothing relevant found), `refusal`, "
                "`action_proposal` (awaiting approval), `action_result`, `action_rejected`, or "
                "`action_not_possible` (the user asked for an action that cannot happen as asked; nothing was "
                "proposed and `reason` says why)."
            )
        ),
    ]
    text: str
    reason: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "Only with `action_not_possible`, why: `unknown_record` (no such invoice or account), "
                "`missing_argument` (the request names no invoice or account: the text asks for it), "
                "`unknown_action` (not an action the agent can take), `already_done` (e.g. the account is "
                "already deleted), `wrong_account` (the record belongs to another account than the caller's). "
                "An open set: clients keep a default branch."
            )
        ),
    ] = None


class Citation(msgspec.Struct, kw_only=True):
    """A knowledge-base document the answer relies on."""

    doc_id: str
    title: str
    snippet: str


class PendingApproval(msgspec.Struct, kw_only=True):
    """An action the agent wants to take, waiting for a human decision."""

    approval_id: str
    action: Annotated[str, msgspec.Meta(description="The action's name, e.g. `issue_refund` or `delete_account`.")]
    summary: Annotated[
        str, msgspec.Meta(description="One human-readable line, e.g. `Refund invoice INV-1001 ($42.00)`.")
    ]


class TraceEntry(msgspec.Struct, kw_only=True):
    """One executed graph node; `latency_ms` is the duration of the node's OpenTelemetry span."""

    node: Annotated[str, msgspec.Meta(description="One of the graph's nodes (see `NodeName`).")]
    latency_ms: Annotated[float, msgspec.Meta(ge=0)]
    outcome: Annotated[
        str,
        msgspec.Meta(
            description=(
                "What the node decided, e.g. `allowed`, `refused`, `retrieved`, `answered`, `proposed_action`."
            )
        ),
    ]


class TokenCounts(msgspec.Struct, kw_only=True):
    """The model and the tokens it read and wrote: the first fields of ``Usage`` and of ``cost_updated``'s data
    (each adds its ``cost_usd``, described for where it stands)."""

    model: str
    input_tokens: NonNegativeInt
    output_tokens: NonNegativeInt


class Usage(TokenCounts, kw_only=True):
    """Model usage of the whole turn."""

    cost_usd: Annotated[
        Annotated[float, msgspec.Meta(ge=0)] | None,
        msgspec.Meta(description="`null` when the model has no known price (never a made-up 0)."),
    ]


class ChatResponse(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The outcome of one turn (or of the part of it before a pause)."""

    session_id: SessionId
    run_id: RunId
    status: TurnStatus
    answer: Answer
    citations: list[Citation]
    pending_approval: PendingApproval | None
    trace: list[TraceEntry]
    usage: Usage
    decided_by: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "Who approved or rejected the action of this turn (the subject of their token); omitted when "
                "nobody decided, and when identity is off."
            )
        ),
    ] = None
