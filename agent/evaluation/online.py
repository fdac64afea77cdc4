"""Online evaluation: the scorers that need no expectation, run on a finished production run as its log has it.

A dataset case says what should happen; a production run has no such case, so only the scorers that judge a run
on its own apply: ``outcome`` (it completed, rather than failed, was cancelled or was refused), ``guardrail`` (the
support agent's turn was refused or not), ``trajectory`` (every node it started completed without an error) and,
with a latency budget, ``budget`` (the registered scorer of a dataset's ``expect.budget``, on the run's time in its
nodes), and with a rubric and a judge configured, ``judge`` (the eval's LLM judge grading a registered graph's run:
its first input against its final answer, both redacted before the judge sees them). A score holds a number and
a reason code, never a word of what the run said or redacted.

Which runs are scored is a pure function of the run id (``sampled``), so every instance agrees without talking.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from agent.evaluation.graph_cases import GraphCase
from agent.evaluation.judge import JudgeExpectation
from agent.evaluation.records import INTERRUPT_MARKER, Check, GraphRecord
from agent.evaluation.scorers import resolve_scorer
from agent.evaluation.trajectory import steps_of
from agent.graphs import SUPPORT_GRAPH_ID
from agent.guardrails import redact

if TYPE_CHECKING:
    from agent.evaluation.capture import CapturedRun
    from agent.evaluation.judge import JudgeVerdict

__all__ = ("ONLINE_SCORERS", "Grader", "OnlineScore", "OnlineScoring", "sampled", "score_run")

ONLINE_SCORERS = ("outcome", "guardrail", "trajectory", "budget")
"""The scorers that need no model (``guardrail`` on the support agent's turns, ``budget`` with a budget); ``judge``
comes after them when configured."""
_MAX_JUDGED = 4000
"""Characters of an input or an answer the judge is shown (the eval's judge shows as many)."""
_HASH_SPACE = 2**64
_UNFINISHED = frozenset({"error", "running", "interrupted"})
"""A step's outcomes that are no node's own word for how it went (``ok``, ``allowed``, ``retrieved``...): it
failed, or never completed before the run ended."""


class OnlineScore(msgspec.Struct, frozen=True, kw_only=True):
    """One scorer's verdict on one finished run: numbers and a reason code, no text of the run's."""

    run_id: str
    assistant: str
    """The graph the run ran (``support`` for a turn of ``/chat``)."""
    scorer: str
    value: float
    """In [0, 1]; 1 or 0 for a pass/fail scorer."""
    passed: bool
    reason: str
    """A code from a bounded set (``completed``, ``refused``, ``node_error``, an error event's code...)."""
    at: str
    """When the run finished (RFC 3339): the windows of ``harness eval online`` are over this."""


class OnlineScoring(msgspec.Struct, frozen=True, kw_only=True):
    rate: float = 0.0
    """The share of finished runs scored, in [0, 1] (``HARNESS_ONLINE_EVAL_RATE``; 0: off)."""
    latency_budget_ms: float | None = None
    """With it, the ``budget`` scorer fails a run whose nodes took longer (``HARNESS_ONLINE_EVAL_LATENCY_MS``)."""
    judge_rubric: str | None = None
    """With it, the judge grades each scored run of a registered graph against it
    (``HARNESS_ONLINE_EVAL_JUDGE_RUBRIC``, with ``HARNESS_JUDGE_PROVIDER``)."""


class Grader(Protocol):
    """The eval's judge (``agent.evaluation.judge.Judge``), as online evaluation uses it."""

    async def grade(self, expectation: JudgeExpectation, *, input: str, output: str) -> JudgeVerdict: ...


def sampled(run_id: str, rate: float) -> bool:
    """Whether ``run_id`` is among the ``rate`` of runs scored: the first 64 bits of its SHA-256 below ``rate``
    of their range. The same answer on every instance, and a run scored at a rate is scored at any higher one."""
    if rate <= 0:
        return False
    return int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:8], "big") < rate * _HASH_SPACE


async def score_run(
    run: CapturedRun, scoring: OnlineScoring, *, at: str, judge: Grader | None = None
) -> list[OnlineScore]:
    """Every online scorer that applies to the finished ``run``, in ``ONLINE_SCORERS`` order, then ``judge`` (with
    ``judge`` and a rubric, on a registered graph's completed run; a judge that gives no verdict gives no score:
    it says nothing of the answer)."""
    assistant = run.graph_id or SUPPORT_GRAPH_ID
    terminal = _terminal(run.envelopes)
    response = _response(terminal)
    verdicts: list[tuple[str, float, bool, str]] = [_outcome(run, terminal, response)]
    if run.graph_id is None and response is not None:
        refused = response.get("status") == "refused"
        verdicts.append(("guardrail", 0.0 if refused else 1.0, not refused, "refused" if refused else "answered"))
    steps = [step for step in steps_of(run.envelopes) if step.node != INTERRUPT_MARKER]
    verdicts.append(_trajectory(steps))
    if scoring.latency_budget_ms is not None:
        verdicts.append(await _budget(run.run_id, steps, scoring.latency_budget_ms))
    exchange = _exchange(run, terminal)
    if judge is not None and scoring.judge_rubric and exchange is not None:
        expectation = JudgeExpectation(rubric=scoring.judge_rubric)
        verdict = await judge.grade(expectation, input=exchange[0], output=exchange[1])
        if verdict.label != "error" and verdict.score is not None:
            verdicts.append(("judge", round(verdict.score, 6), verdict.passed, verdict.label))
    return [
        OnlineScore(
            run_id=run.run_id, assistant=assistant, scorer=name, value=value, passed=passed, reason=reason, at=at
        )
        for name, value, passed, reason in verdicts
    ]


def _terminal(envelopes: list[dict[str, Any]]) -> dict[str, Any] | None:
    ends = ("turn_completed", "run_completed", "error")
    return next((envelope for envelope in reversed(envelopes) if envelope.get("type") in ends), None)


def _response(terminal: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``ChatResponse`` a support agent's turn ended with."""
    if terminal is None or terminal.get("type") != "turn_completed":
        return None
    response = (terminal.get("data") or {}).get("response")
    return response if isinstance(response, dict) else None


def _outcome(
    run: CapturedRun, terminal: dict[str, Any] | None, response: dict[str, Any] | None
) -> tuple[str, float, bool, str]:
    if terminal is not None and terminal.get("type") == "error":
        code = (terminal.get("data") or {}).get("code")
        return ("outcome", 0.0, False, code if isinstance(code, str) and code.isidentifier() else run.status)
    if run.status != "completed":
        return ("outcome", 0.0, False, run.status)
    if response is not None and response.get("status") == "refused":
        return ("outcome", 0.0, False, "refused")
    return ("outcome", 1.0, True, "completed")


def _trajectory(steps: list[Any]) -> tuple[str, float, bool, str]:
    if not steps:
        return ("trajectory", 0.0, False, "no_steps")
    ok = sum(1 for step in steps if step.outcome not in _UNFINISHED)
    if ok == len(steps):
        return ("trajectory", 1.0, True, "ok")
    reason = "node_error" if any(step.outcome == "error" for step in steps) else "node_unfinished"
    return ("trajectory", round(ok / len(steps), 6), False, reason)


async def _budget(run_id: str, steps: list[Any], latency_ms: float) -> tuple[str, float, bool, str]:
    """The dataset's ``budget`` scorer, on a case whose only expectation is the latency budget."""
    case = msgspec.convert({"id": "online", "input": {}, "expect": {"budget": {"latency_ms": latency_ms}}}, GraphCase)
    spent = round(sum(step.latency_ms for step in steps if step.depth == 0), 3)
    check = resolve_scorer("budget")(case, GraphRecord(id=run_id, latency_ms=spent))
    if inspect.isawaitable(check):
        check = await check
    assert isinstance(check, Check), "the budget scorer answers a Check"
    passed = check.passed
    return ("budget", 1.0 if passed else 0.0, passed, "within_budget" if passed else "over_latency")


def _exchange(run: CapturedRun, terminal: dict[str, Any] | None) -> tuple[str, str] | None:
    """A completed graph run's input (its first ``values`` part: the user's first message, else the state) and
    answer (its final state's last message, else the state), redacted; ``None`` for anything else (a ``/chat``
    turn's question is in the interaction log, not in its events)."""
    if run.graph_id is None or terminal is None or terminal.get("type") != "run_completed":
        return None
    first = next(
        (
            data["data"]
            for envelope in run.envelopes
            if envelope.get("type") == "graph_part"
            and (data := envelope.get("data") or {}).get("mode") == "values"
            and not data.get("ns")
        ),
        None,
    )
    final = (terminal.get("data") or {}).get("output")
    if first is None or final is None:
        return None
    return _judged_text(_first_human(first)), _judged_text(_last_message(final))


def _first_human(state: Any) -> Any:
    messages = state.get("messages") if isinstance(state, dict) else None
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict) and message.get("type") == "human" and "content" in message:
                return message["content"]
    return state


def _last_message(state: Any) -> Any:
    messages = state.get("messages") if isinstance(state, dict) else None
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict) and "content" in messages[-1]:
        return messages[-1]["content"]
    return state


def _judged_text(value: Any) -> str:
    """``value`` redacted, then cut: cut first, a card number across the cut would no longer read as one."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return redact(text)[:_MAX_JUDGED]
