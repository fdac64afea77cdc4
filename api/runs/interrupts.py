"""A registered graph's interrupt, shown as the approval a person decides (the inbox, the SPA, ``paused``).

A graph that asks for approval passes ``interrupt()`` a value naming ``action`` and ``summary`` (the examples'
ReAct agent and the support agent do; the support agent also its ``approval_id``); any other value is shown as
its JSON text, and its action as ``interrupt``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from contracts import PendingApproval

if TYPE_CHECKING:
    from collections.abc import Sequence

    from contracts import InterruptInfo

__all__ = ("approval_of",)

_SUMMARY_CHARS = 200
_ANY_INTERRUPT = "interrupt"


def approval_of(interrupts: Sequence[InterruptInfo]) -> PendingApproval:
    """The approval for the first of ``interrupts`` (a resume answers them in order)."""
    first = interrupts[0]
    value = first.value if isinstance(first.value, dict) else {}
    action, summary, approval_id = value.get("action"), value.get("summary"), value.get("approval_id")
    return PendingApproval(
        approval_id=approval_id if isinstance(approval_id, str) and approval_id else first.id,
        action=action if isinstance(action, str) and action else _ANY_INTERRUPT,
        summary=summary if isinstance(summary, str) and summary else _as_text(first.value),
    )


def _as_text(value: object) -> str:
    text = value if isinstance(value, str) else msgspec.json.encode(value).decode()
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"
