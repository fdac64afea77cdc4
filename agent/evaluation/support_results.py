"""The support agent's results, read from a run of its case through the graph runner: one ``TurnResult`` per
expected turn, from the state at the stop that turn ended in (``GraphRecord.steps``), and the ``CaseResult``
its metrics, reports and gate read. Registered as the ``turns`` scorer, so a case's record says whether its
turns passed like any other check.

Every observation is what the graph itself wrote into its state, read the way ``agent.response.chat_response``
reads it: the status (``paused`` at an interrupt, else the state's), the answer, the citations of retrieved
passages, the usage. What a turn did, as opposed to what the state still holds from the turn before (a
resume continues the run it answers, so its state keeps that turn's passages and screen), comes from the
trace entries it added: the nodes it ran with their span durations and outcomes, whether ``guardrail_pre``
refused it, whether ``generate_answer`` got a structured answer (``answered_plain`` is the one outcome of a
plain-text answer), and only a turn that ran ``retrieve_context`` or ``guardrail_pre`` has retrieved
passages or a refusal reason of its own. A paused turn's proposal is the state's ``proposal``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import msgspec

from agent.evaluation.checks import turn_failures
from agent.evaluation.records import Check
from agent.evaluation.results import CaseResult, NodeTiming, ProposedAction, TurnResult
from agent.evaluation.scorers import register_scorer
from agent.evaluation.support_cases import TurnExpect, TurnKind, case_messages, turn_kinds
from agent.intake import support_decision

if TYPE_CHECKING:
    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.records import GraphRecord, GraphStep
    from agent.evaluation.support_cases import CaseCategory

__all__ = ("support_result",)

_PLAIN_ANSWER = "answered_plain"
"""``generate_answer``'s outcome when the model did not answer with the structured object it was asked for."""


def support_result(case: GraphCase, record: GraphRecord) -> CaseResult:
    """The case's turns as the support agent's metrics read them, each checked against its expectation.

    A turn the run never reached is ``error`` when the run raised there, else ``skipped``: after a turn that
    failed, or where a resume had no pause to answer."""
    expected = case.expect.turns
    assert expected is not None, "a support case says what each turn does"
    turns: list[TurnResult] = []
    previous: GraphStep | None = None
    for index, (kind, expect, sent) in enumerate(zip(turn_kinds(expected), expected, _labels(case), strict=True)):
        planned = _Planned(index=index + 1, kind=kind, sent=sent, expected=expect)
        if turns and turns[-1].status in ("error", "skipped"):
            turn = planned.not_run("skipped", "an earlier turn of the case failed")
        elif index < len(record.steps):
            step = record.steps[index]
            turn = _observed(planned, step, previous)
            previous = step
        elif record.status == "error":
            turn = planned.not_run("error", record.error or "the run failed")
        else:
            got = turns[-1].status if turns else "nothing"
            turn = planned.not_run("skipped", f"nothing to resume: the turn before ended {got}")
        turn.failures = turn_failures(turn)
        turns.append(turn)
    category: CaseCategory = case.category  # type: ignore[assignment]  # checked when the dataset loaded
    return CaseResult.of(
        id=case.id,
        category=category,
        known_issue=case.known_issue,
        turns=turns,
        epoch=record.epoch,
        events=record.events,
    )


def _labels(case: GraphCase) -> list[str]:
    """What each turn sends, as the reports show it: the message, or ``[approve]`` / ``[reject]``."""
    messages = iter(case_messages(case))
    resumes = iter(case.resume)
    assert case.expect.turns is not None
    labels = []
    for kind in turn_kinds(case.expect.turns):
        if kind == "message":
            labels.append(next(messages))
        else:
            decision = support_decision(next(resumes))
            labels.append(f"[{decision[0] if decision else '?'}]")
    return labels


class _Planned(msgspec.Struct, frozen=True, kw_only=True):
    """A turn as the case plans it: what it sends and what it should do."""

    index: int
    kind: TurnKind
    sent: str
    expected: TurnExpect

    def not_run(self, status: Literal["error", "skipped"], why: str) -> TurnResult:
        return TurnResult(**msgspec.structs.asdict(self), status=status, error=why)


def _observed(planned: _Planned, step: GraphStep, previous: GraphStep | None) -> TurnResult:
    state: dict[str, Any] = step.state if isinstance(step.state, dict) else {}
    entries = _new_entries(previous, step)
    ran = {entry.get("node"): entry for entry in entries}
    answer = state.get("answer") or {"kind": "answer", "text": ""}
    passages = [passage["doc_id"] for passage in state.get("passages") or []]
    usage: dict[str, Any] = state.get("usage") or {}
    proposal = state.get("proposal")
    answered = ran.get("generate_answer")
    return TurnResult(
        **msgspec.structs.asdict(planned),
        status="paused" if step.paused else state.get("status") or "completed",
        answer_kind=answer["kind"],
        answer_text=answer["text"],
        retrieved=passages if "retrieve_context" in ran else [],
        cited=[doc_id for doc_id in state.get("cited") or [] if doc_id in passages],
        guardrail_refused=ran.get("guardrail_pre", {}).get("outcome") == "refused",
        refusal_reason=state.get("refusal_reason") if "guardrail_pre" in ran else None,
        well_formed=None if answered is None else answered.get("outcome") != _PLAIN_ANSWER,
        action=(
            ProposedAction(name=proposal["action"], arguments=dict(proposal["arguments"]))
            if step.paused and proposal
            else None
        ),
        nodes=[
            NodeTiming(node=str(e["node"]), latency_ms=float(e["latency_ms"]), outcome=str(e["outcome"]))
            for e in entries
        ],
        model=usage.get("model", ""),
        input_tokens=usage.get("input_tokens", 0),
        output_tokens=usage.get("output_tokens", 0),
        cost_usd=usage.get("cost_usd"),
    )


def _new_entries(previous: GraphStep | None, step: GraphStep) -> list[dict[str, Any]]:
    """The trace entries this step's send added. The trace holds one run's entries; a resume continues the
    run of the turn it answers, so its trace starts with that turn's."""
    trace: list[dict[str, Any]] = (step.state or {}).get("trace") or []
    if step.sent != "resume" or previous is None:
        return trace  # a message begins a run of its own
    before: list[dict[str, Any]] = (previous.state or {}).get("trace") or []
    return trace[len(before) :] if trace[: len(before)] == before else trace


def _turns(case: GraphCase, record: GraphRecord) -> Check:
    """Whether every turn met its expectations; the misses as the reports name them."""
    result = support_result(case, record)
    misses = [f"turn {turn.index}: {failure}" for turn in result.turns for failure in turn.failures]
    return Check(name="turns", passed=result.passed, detail="; ".join(misses))


register_scorer("turns", _turns)
