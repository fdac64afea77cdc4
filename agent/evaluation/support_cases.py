"""The support agent's cases: what each of its turns should do (``expect.turns``), and what such a case must say
beyond its shape.

A support case is a graph case (``agent.evaluation.graph_cases``) for the registered graph ``support``: its
``messages`` (or ``input: {message: ...}``) is the first turn, each value of ``resume`` answers a pause in
the Agent Protocol's shape (``{decision: approve}``, ``{decision: reject, comment: ...}``), each of ``then``
is a later message. ``expect.turns`` holds one expectation per send, in the order they are sent: after a
turn expected to pause comes the next resume, after any other the next message. The order is read from the
expectations, so a case cannot say one thing in its turns and send another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, get_args

import msgspec

from agent.guardrails import RefusalReason
from agent.intake import support_decision, support_message
from contracts import AnswerKind, TurnStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.graph_cases import GraphCase

__all__ = (
    "CASE_CATEGORIES",
    "MAX_MESSAGE_CHARS",
    "CaseCategory",
    "ExpectedAction",
    "TurnExpect",
    "TurnKind",
    "case_messages",
    "turn_kinds",
    "turn_problems",
)

CaseCategory = Literal[
    "answerable",
    "paraphrase",
    "typo",
    "benign_lookalike",
    "prompt_injection",
    "secret_request",
    "pii",
    "action",
    "impossible_action",
    "out_of_scope",
    "multi_turn",
]
CASE_CATEGORIES: tuple[str, ...] = get_args(CaseCategory)
MAX_MESSAGE_CHARS = 4000
"""The longest message a turn may carry, as ``POST /chat`` allows."""
TurnKind = Literal["message", "resume"]


class ExpectedAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    """The action the model should propose, e.g. ``issue_refund``."""
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    """Compared for equality with the proposal's arguments."""


class TurnExpect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What one turn of the support agent should do: the figures of its headline metrics are read against these."""

    status: TurnStatus
    answer_kind: AnswerKind | None = None
    """Checked when given; ``no_answer`` is how an out-of-scope question should end."""
    doc_ids: tuple[str, ...] = ()
    """The relevant documents: the retrieval and citation metrics score the turn against them."""
    action: ExpectedAction | msgspec.UnsetType | None = msgspec.UNSET
    """Omitted: no expectation. ``null``: the turn must propose nothing. An object: it must propose exactly this."""
    refusal_reason: RefusalReason | None = None
    """The input guardrail's reason code, checked when given."""

    def __post_init__(self) -> None:
        if isinstance(self.action, ExpectedAction) and self.status != "paused":
            raise ValueError("an expected action means the turn pauses for approval: status must be 'paused'")
        if self.refusal_reason is not None and self.status != "refused":
            raise ValueError("refusal_reason only applies to a turn expected to be 'refused'")


def turn_kinds(turns: Sequence[TurnExpect]) -> list[TurnKind]:
    """What each turn sends: the first a message; after a turn expected to pause, a resume; else a message."""
    return ["resume" if index and turns[index - 1].status == "paused" else "message" for index in range(len(turns))]


def case_messages(case: GraphCase) -> list[str]:
    """The messages a support case sends, in order (its first input's, then each of ``then``)."""
    inputs = [case.first_input(), *case.then]
    found = [turn if isinstance(turn, str) else support_message(turn) for turn in inputs]
    return [message for message in found if message is not None]


def turn_problems(case: GraphCase) -> list[str]:
    """What a case with ``expect.turns`` cannot say, as ``field: problem`` lines (empty: it is usable)."""
    turns = case.expect.turns
    assert turns is not None
    problems: list[str] = []
    kinds = turn_kinds(turns)
    resumes, later = kinds.count("resume"), kinds.count("message") - 1
    if resumes != len(case.resume):
        problems.append(
            f"resume: expect.turns answers {resumes} pause(s) (each turn after one expected to pause resumes it), "
            f"but {len(case.resume)} value(s) are given"
        )
    if later != len(case.then):
        problems.append(
            f"then: expect.turns sends {later} later message(s) (each turn not after an expected pause), "
            f"but {len(case.then)} are given"
        )
    for index, (kind, expect) in enumerate(zip(kinds, turns, strict=True)):
        if kind == "resume" and (expect.doc_ids or expect.refusal_reason):
            problems.append(
                f"expect.turns[{index}]: a resume neither retrieves nor meets the input guardrail: "
                "no doc_ids/refusal_reason"
            )
    for index, value in enumerate(case.resume):
        if support_decision(value) is None or set(value) - {"decision", "comment"}:
            problems.append(
                f"resume[{index}]: the support agent is resumed with {{decision: approve | reject, comment: text}}, "
                f"got {value!r}"
            )
    sent = [("messages" if case.messages is not None else "input", case.first_input())]
    sent += [(f"then[{index}]", turn) for index, turn in enumerate(case.then)]
    for field, turn in sent:
        message = turn if isinstance(turn, str) else support_message(turn)
        if message is None:
            problems.append(f"{field}: no user message (the support agent takes `messages`, or `input: {{message}}`)")
        elif not message.strip() or len(message) > MAX_MESSAGE_CHARS:
            problems.append(f"{field}: a message is 1 to {MAX_MESSAGE_CHARS} characters, got {len(message)}")
    if case.category not in CASE_CATEGORIES:
        problems.append(f"category: the support agent's cases name one of {', '.join(CASE_CATEGORIES)}")
    return problems
