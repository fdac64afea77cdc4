"""The ``ResumeRequest`` body that decides a paused turn's pending approval."""

from __future__ import annotations

from typing import Any

__all__ = ("decision_for",)


def decision_for(paused: dict[str, Any], decision: str, comment: str | None = None) -> dict[str, Any]:
    """``paused``: the paused turn's ``ChatResponse`` as JSON."""
    body = {"run_id": paused["run_id"], "approval_id": paused["pending_approval"]["approval_id"], "decision": decision}
    return body if comment is None else {**body, "comment": comment}
