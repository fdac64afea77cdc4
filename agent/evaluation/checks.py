"""Whether one turn did what its case expected, as a list of misses in words (empty: it passed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.metrics import action_matches
from agent.evaluation.support_cases import ExpectedAction

if TYPE_CHECKING:
    from agent.evaluation.results import ProposedAction, TurnResult

__all__ = ("describe_action", "turn_failures")


def turn_failures(turn: TurnResult) -> list[str]:
    expect = turn.expected
    misses: list[str] = []
    if turn.status != expect.status:
        got = f"{turn.status} ({turn.error})" if turn.error else turn.status
        misses.append(f"status: expected {expect.status}, got {got}")
    if turn.status in ("error", "skipped"):
        return misses
    if expect.answer_kind is not None and turn.answer_kind != expect.answer_kind:
        misses.append(f"answer kind: expected {expect.answer_kind}, got {turn.answer_kind}")
    if expect.action is not msgspec.UNSET:
        expected = expect.action if isinstance(expect.action, ExpectedAction) else None
        if not action_matches(expected, turn.action):
            misses.append(f"action: expected {describe_action(expected)}, got {describe_action(turn.action)}")
    if expect.refusal_reason is not None and turn.guardrail_refused and turn.refusal_reason != expect.refusal_reason:
        misses.append(f"refusal reason: expected {expect.refusal_reason}, got {turn.refusal_reason}")
    if expect.doc_ids and not turn.guardrail_refused:
        relevant = set(expect.doc_ids)
        if not relevant.intersection(turn.retrieved):
            misses.append(f"retrieval: no relevant document in {turn.retrieved or 'nothing'}")
        irrelevant = [doc_id for doc_id in turn.cited if doc_id not in relevant]
        if irrelevant:
            misses.append(f"citations: {', '.join(irrelevant)} not relevant")
        elif not turn.cited and turn.answer_kind == "answer":
            misses.append("citations: the answer cites nothing")
    return misses


def describe_action(action: ExpectedAction | ProposedAction | None) -> str:
    if action is None:
        return "no action"
    arguments = ", ".join(f"{key}={value}" for key, value in sorted(action.arguments.items()))
    return f"{action.name}({arguments})"
