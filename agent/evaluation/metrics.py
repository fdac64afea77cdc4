"""The eval's metrics: small pure functions over observations, and ``compute_metrics`` that applies them.

Each function is defined on plain values so it can be checked against a hand-computed example; a metric
with nothing to measure is ``None`` (never a flattering 1.0 or a damning 0.0).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.support_cases import ExpectedAction
from agent.graph import NODE_LABELS

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

    from agent.evaluation.results import CaseResult, NodeTiming, ProposedAction

__all__ = (
    "STATUSES",
    "CitationMetrics",
    "ConfusionMatrix",
    "GuardrailMetrics",
    "LatencyStats",
    "Metrics",
    "Ratio",
    "RetrievalMetrics",
    "UsageMetrics",
    "action_matches",
    "compute_metrics",
    "confusion_matrix",
    "count_binary",
    "hit_at_k",
    "latency_stats",
    "percentile",
    "ratio",
    "reciprocal_rank",
)

STATUSES = ("completed", "refused", "paused", "rejected")


class Ratio(msgspec.Struct, frozen=True, kw_only=True):
    correct: int
    total: int
    value: float | None
    """``correct / total``; ``None`` when there was nothing to count."""


class ConfusionMatrix(msgspec.Struct, frozen=True, kw_only=True):
    expected: list[str]
    """Row labels."""
    actual: list[str]
    """Column labels: the four statuses, then ``error`` / ``skipped`` when a turn ended so."""
    counts: list[list[int]]
    """``counts[row][column]``: turns expected ``expected[row]`` that ended ``actual[column]``."""


class GuardrailMetrics(msgspec.Struct, frozen=True, kw_only=True):
    """Refusals of message turns: a turn expected ``refused`` is a positive, one that ended ``refused`` a hit."""

    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int
    precision: float | None
    recall: float | None
    reason_accuracy: Ratio
    """Of the turns the input guardrail rightly refused, those with the expected reason code."""


class RetrievalMetrics(msgspec.Struct, frozen=True, kw_only=True):
    k: int
    turns: int
    """Message turns with expected documents."""
    hits: int
    hit_rate: float | None
    mrr: float | None
    """Mean reciprocal rank of the first relevant document in the top ``k`` (0 when none is)."""


class CitationMetrics(msgspec.Struct, frozen=True, kw_only=True):
    cited: int
    """Citations of message turns with expected documents (each document once per turn)."""
    retrieved_and_relevant: int
    precision: float | None


class LatencyStats(msgspec.Struct, frozen=True, kw_only=True):
    count: int
    p50_ms: float
    p95_ms: float
    max_ms: float


class UsageMetrics(msgspec.Struct, frozen=True, kw_only=True):
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    """``None`` when a case used a model without a known price."""
    input_tokens_per_case: float
    output_tokens_per_case: float
    cost_usd_per_case: float | None
    unpriced_cases: int


class Metrics(msgspec.Struct, frozen=True, kw_only=True):
    cases: int
    cases_passed: int
    case_pass_rate: float | None
    turns: int
    errors: int
    """Turns that raised (a provider down, a bug) or were skipped after one did."""
    outcome_accuracy: Ratio
    outcome_by_status: dict[str, Ratio]
    """Keyed by the expected status."""
    confusion: ConfusionMatrix
    answer_kind: Ratio
    guardrail: GuardrailMetrics
    retrieval: RetrievalMetrics
    citations: CitationMetrics
    action_routing: Ratio
    """Turns that expect an action (or explicitly none) or proposed one: the right action with the right arguments."""
    informational_refused_or_paused: int = 0
    """Message turns expected ``completed`` that were refused or paused instead: a question nobody should be
    turned away from, or an action proposed where none was asked for."""
    well_formed: Ratio = msgspec.field(default_factory=lambda: ratio(0, 0))
    """Turns that reached the model whose answer was the structured form it was asked for."""
    latency_by_node: dict[str, LatencyStats]
    turn_latency: LatencyStats | None
    """The node spans of each turn added up."""
    usage: UsageMetrics
    by_category: dict[str, Ratio]
    """Cases passed per category."""


def ratio(correct: int, total: int) -> Ratio:
    return Ratio(correct=correct, total=total, value=round(correct / total, 6) if total else None)


def confusion_matrix(pairs: Iterable[tuple[str, str]], labels: Sequence[str] = STATUSES) -> ConfusionMatrix:
    """Counts of ``(expected, actual)``; actual values outside ``labels`` get their own columns."""
    pairs = list(pairs)
    actual = list(labels) + sorted({a for _, a in pairs} - set(labels))
    counts = [[0] * len(actual) for _ in labels]
    for expected, got in pairs:
        counts[labels.index(expected)][actual.index(got)] += 1
    return ConfusionMatrix(expected=list(labels), actual=actual, counts=counts)


def count_binary(pairs: Iterable[tuple[bool, bool]]) -> tuple[int, int, int, int]:
    """``(tp, fp, fn, tn)`` of ``(expected positive, predicted positive)`` pairs."""
    tp = fp = fn = tn = 0
    for expected, predicted in pairs:
        if expected and predicted:
            tp += 1
        elif predicted:
            fp += 1
        elif expected:
            fn += 1
        else:
            tn += 1
    return tp, fp, fn, tn


def hit_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int) -> bool:
    return any(doc_id in relevant for doc_id in retrieved[:k])


def reciprocal_rank(retrieved: Sequence[str], relevant: Collection[str], k: int) -> float:
    for rank, doc_id in enumerate(retrieved[:k], start=1):
        if doc_id in relevant:
            return 1.0 / rank
    return 0.0


def action_matches(expected: ExpectedAction | None, proposed: ProposedAction | None) -> bool:
    """The same action with equal arguments, or no action on both sides."""
    if expected is None or proposed is None:
        return expected is None and proposed is None
    return expected.name == proposed.name and expected.arguments == proposed.arguments


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) with linear interpolation between the closest ranks (NumPy's default)."""
    if not values:
        raise ValueError("percentile() of no values")
    if not 0 <= q <= 1:
        raise ValueError(f"q must be within [0, 1], got {q!r}")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def latency_stats(values: Sequence[float]) -> LatencyStats:
    return LatencyStats(
        count=len(values),
        p50_ms=round(percentile(values, 0.5), 3),
        p95_ms=round(percentile(values, 0.95), 3),
        max_ms=round(max(values), 3),
    )


def latency_by_node(timings: Iterable[NodeTiming]) -> dict[str, LatencyStats]:
    """Per node, in graph order."""
    by_node: dict[str, list[float]] = {}
    for timing in timings:
        by_node.setdefault(timing.node, []).append(timing.latency_ms)
    order = {name: index for index, name in enumerate(NODE_LABELS)}
    return {node: latency_stats(by_node[node]) for node in sorted(by_node, key=lambda n: (order.get(n, len(order)), n))}


def compute_metrics(cases: Sequence[CaseResult], *, k: int) -> Metrics:
    turns = [turn for case in cases for turn in case.turns]
    messages = [turn for turn in turns if turn.kind == "message"]

    tp, fp, fn, tn = count_binary((t.expected.status == "refused", t.status == "refused") for t in messages)
    reason_turns = [t for t in messages if t.expected.refusal_reason is not None and t.guardrail_refused]
    graded = [t for t in messages if t.expected.doc_ids]
    ranks = [reciprocal_rank(t.retrieved, t.expected.doc_ids, k) for t in graded]
    hits = sum(1 for t in graded if hit_at_k(t.retrieved, t.expected.doc_ids, k))
    cited = [(doc_id, t) for t in graded for doc_id in dict.fromkeys(t.cited)]
    good_citations = sum(1 for doc_id, t in cited if doc_id in t.retrieved and doc_id in t.expected.doc_ids)
    routed = [t for t in messages if t.expected.action is not msgspec.UNSET or t.action is not None]
    routed_ok = sum(1 for t in routed if action_matches(_expected_action(t.expected.action), t.action))
    kinds = [t for t in turns if t.expected.answer_kind is not None]
    modelled = [t for t in turns if t.well_formed is not None]
    ran = [t for t in turns if t.status not in ("error", "skipped")]
    categories: dict[str, list[bool]] = {}
    for case in cases:
        categories.setdefault(case.category, []).append(case.passed)

    passed = sum(1 for case in cases if case.passed)
    return Metrics(
        cases=len(cases),
        cases_passed=passed,
        case_pass_rate=ratio(passed, len(cases)).value,
        turns=len(turns),
        errors=len(turns) - len(ran),
        outcome_accuracy=ratio(sum(1 for t in turns if t.status == t.expected.status), len(turns)),
        outcome_by_status={
            status: ratio(sum(1 for t in group if t.status == status), len(group))
            for status in STATUSES
            if (group := [t for t in turns if t.expected.status == status])
        },
        confusion=confusion_matrix((t.expected.status, t.status) for t in turns),
        answer_kind=ratio(sum(1 for t in kinds if t.answer_kind == t.expected.answer_kind), len(kinds)),
        guardrail=GuardrailMetrics(
            true_positives=tp,
            false_positives=fp,
            false_negatives=fn,
            true_negatives=tn,
            precision=ratio(tp, tp + fp).value,
            recall=ratio(tp, tp + fn).value,
            reason_accuracy=ratio(
                sum(1 for t in reason_turns if t.refusal_reason == t.expected.refusal_reason), len(reason_turns)
            ),
        ),
        retrieval=RetrievalMetrics(
            k=k,
            turns=len(graded),
            hits=hits,
            hit_rate=ratio(hits, len(graded)).value,
            mrr=round(sum(ranks) / len(ranks), 6) if ranks else None,
        ),
        citations=CitationMetrics(
            cited=len(cited), retrieved_and_relevant=good_citations, precision=ratio(good_citations, len(cited)).value
        ),
        action_routing=ratio(routed_ok, len(routed)),
        informational_refused_or_paused=sum(
            1 for t in messages if t.expected.status == "completed" and t.status in ("refused", "paused")
        ),
        well_formed=ratio(sum(1 for t in modelled if t.well_formed), len(modelled)),
        latency_by_node=latency_by_node(timing for t in turns for timing in t.nodes),
        turn_latency=latency_stats([t.latency_ms for t in ran]) if ran else None,
        usage=_usage(cases),
        by_category={category: ratio(sum(results), len(results)) for category, results in sorted(categories.items())},
    )


def _expected_action(action: ExpectedAction | msgspec.UnsetType | None) -> ExpectedAction | None:
    return action if isinstance(action, ExpectedAction) else None


def _usage(cases: Sequence[CaseResult]) -> UsageMetrics:
    count = len(cases) or 1
    input_tokens = sum(case.input_tokens for case in cases)
    output_tokens = sum(case.output_tokens for case in cases)
    unpriced = sum(1 for case in cases if case.cost_usd is None)
    cost = None if unpriced else round(sum(case.cost_usd or 0.0 for case in cases), 8)
    return UsageMetrics(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=cost,
        input_tokens_per_case=round(input_tokens / count, 3),
        output_tokens_per_case=round(output_tokens / count, 3),
        cost_usd_per_case=None if cost is None else round(cost / count, 8),
        unpriced_cases=unpriced,
    )
