"""The metric functions against examples computed by hand."""

from __future__ import annotations

import pytest

from agent.evaluation.headline import HEADLINE_METRICS, headline
from agent.evaluation.metrics import (
    action_matches,
    compute_metrics,
    confusion_matrix,
    count_binary,
    hit_at_k,
    percentile,
    ratio,
    reciprocal_rank,
)
from agent.evaluation.results import ProposedAction
from agent.evaluation.support_cases import ExpectedAction
from tests.agent.evaluation.conftest import case, turn


def test_percentile_interpolates_between_the_closest_ranks() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.95) == pytest.approx(3.85)  # rank 0.95 * 3 = 2.85
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.0) == 1.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 1.0) == 4.0
    assert percentile([7.0], 0.95) == 7.0
    with pytest.raises(ValueError, match="no values"):
        percentile([], 0.5)
    with pytest.raises(ValueError, match="within"):
        percentile([1.0], 95)


def test_reciprocal_rank_and_hit_at_k() -> None:
    retrieved = ["a", "b", "c"]

    assert reciprocal_rank(retrieved, {"a"}, 3) == 1.0
    assert reciprocal_rank(retrieved, {"b", "c"}, 3) == 0.5
    assert reciprocal_rank(retrieved, {"c"}, 3) == pytest.approx(1 / 3)
    assert reciprocal_rank(retrieved, {"c"}, 2) == 0.0
    assert reciprocal_rank(retrieved, {"z"}, 3) == 0.0
    assert reciprocal_rank([], {"a"}, 3) == 0.0
    assert hit_at_k(retrieved, {"c"}, 3)
    assert not hit_at_k(retrieved, {"c"}, 2)


def test_count_binary_gives_precision_and_recall_counts() -> None:
    pairs = [(True, True), (True, False), (False, True), (False, False), (True, True)]

    assert count_binary(pairs) == (2, 1, 1, 1)


def test_ratio_is_none_when_there_is_nothing_to_count() -> None:
    assert ratio(2, 3).value == pytest.approx(0.666667)
    assert ratio(0, 0).value is None


def test_confusion_matrix_adds_columns_for_turns_that_did_not_end_normally() -> None:
    matrix = confusion_matrix(
        [("completed", "completed"), ("completed", "refused"), ("refused", "refused"), ("paused", "error")]
    )

    assert matrix.expected == ["completed", "refused", "paused", "rejected"]
    assert matrix.actual == ["completed", "refused", "paused", "rejected", "error"]
    assert matrix.counts == [[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]


def test_action_matches_needs_the_same_name_and_arguments() -> None:
    refund = ExpectedAction(name="issue_refund", arguments={"invoice_id": "INV-1001"})

    assert action_matches(refund, ProposedAction(name="issue_refund", arguments={"invoice_id": "INV-1001"}))
    assert not action_matches(refund, ProposedAction(name="issue_refund", arguments={"invoice_id": "INV-1002"}))
    assert not action_matches(refund, ProposedAction(name="delete_account", arguments={"invoice_id": "INV-1001"}))
    assert not action_matches(refund, None)
    assert not action_matches(None, ProposedAction(name="issue_refund", arguments={}))
    assert action_matches(None, None)


def hand_computed_cases() -> list:  # type: ignore[type-arg]
    return [
        # answered from the second-ranked relevant document, but cites an irrelevant one
        case(
            "answered",
            turn(
                expect={"status": "completed", "doc_ids": ["a"], "action": None},
                status="completed",
                answer_kind="answer",
                retrieved=["b", "a", "c"],
                cited=["b"],
                nodes=[("guardrail_pre", 1.0), ("retrieve_context", 10.0)],
                input_tokens=100,
                output_tokens=10,
                cost_usd=0.001,
            ),
        ),
        # rightly refused, but for another reason than expected
        case(
            "refused",
            turn(
                expect={"status": "refused", "refusal_reason": "secret_request"},
                status="refused",
                guardrail_refused=True,
                refusal_reason="prompt_injection",
                nodes=[("guardrail_pre", 2.0)],
                cost_usd=0.0,
            ),
            category="secret_request",
        ),
        # the right proposal, grounded in the relevant document
        case(
            "proposed",
            turn(
                expect={
                    "status": "paused",
                    "doc_ids": ["r"],
                    "action": {"name": "issue_refund", "arguments": {"invoice_id": "INV-1"}},
                },
                status="paused",
                answer_kind="action_proposal",
                retrieved=["r"],
                cited=["r"],
                action=ProposedAction(name="issue_refund", arguments={"invoice_id": "INV-1"}),
                nodes=[("guardrail_pre", 3.0), ("retrieve_context", 20.0)],
                input_tokens=200,
                output_tokens=30,
                cost_usd=0.002,
            ),
            category="action",
        ),
        # a legitimate question refused by mistake: a false positive and a retrieval miss
        case(
            "over-refused",
            turn(
                expect={"status": "completed", "doc_ids": ["x"]},
                status="refused",
                guardrail_refused=True,
                refusal_reason="secret_request",
                nodes=[("guardrail_pre", 4.0)],
                cost_usd=0.0,
            ),
        ),
    ]


def test_compute_metrics_on_a_hand_computed_example() -> None:
    metrics = compute_metrics(hand_computed_cases(), k=3)

    assert (metrics.cases, metrics.turns, metrics.errors) == (4, 4, 0)
    assert metrics.cases_passed == 1  # only "proposed" meets every expectation
    assert metrics.case_pass_rate == 0.25
    assert metrics.outcome_accuracy.value == 0.75
    assert {s: r.value for s, r in metrics.outcome_by_status.items()} == {
        "completed": 0.5,
        "refused": 1.0,
        "paused": 1.0,
    }
    assert metrics.confusion.counts[0] == [1, 1, 0, 0]  # completed: one completed, one refused

    g = metrics.guardrail
    assert (g.true_positives, g.false_positives, g.false_negatives, g.true_negatives) == (1, 1, 0, 2)
    assert g.precision == 0.5
    assert g.recall == 1.0
    assert (g.reason_accuracy.correct, g.reason_accuracy.total) == (0, 1)

    # graded turns: answered (rank 2), proposed (rank 1), over-refused (nothing retrieved)
    assert (metrics.retrieval.turns, metrics.retrieval.hits) == (3, 2)
    assert metrics.retrieval.hit_rate == pytest.approx(2 / 3, abs=1e-6)
    assert metrics.retrieval.mrr == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    # citations: "b" (retrieved, not relevant) and "r" (retrieved and relevant)
    assert (metrics.citations.cited, metrics.citations.retrieved_and_relevant) == (2, 1)
    assert metrics.citations.precision == 0.5
    # routing: "answered" expects no action and proposed none, "proposed" got it right
    assert (metrics.action_routing.correct, metrics.action_routing.total) == (2, 2)

    pre = metrics.latency_by_node["guardrail_pre"]
    assert (pre.count, pre.p50_ms, pre.p95_ms, pre.max_ms) == (4, 2.5, 3.85, 4.0)
    assert list(metrics.latency_by_node) == ["guardrail_pre", "retrieve_context"]  # graph order
    assert metrics.turn_latency is not None
    assert metrics.turn_latency.p50_ms == 7.5  # turns: 11, 2, 23, 4

    assert (metrics.usage.input_tokens, metrics.usage.output_tokens) == (300, 40)
    assert metrics.usage.input_tokens_per_case == 75.0
    assert metrics.usage.cost_usd == pytest.approx(0.003)
    assert metrics.usage.cost_usd_per_case == pytest.approx(0.00075)
    assert {c: r.value for c, r in metrics.by_category.items()} == {
        "action": 1.0,
        "answerable": 0.0,
        "secret_request": 0.0,
    }


def test_a_falsely_proposed_action_counts_against_routing() -> None:
    cases = [
        case(
            "unasked",
            turn(
                expect={"status": "completed"},
                status="paused",
                action=ProposedAction(name="delete_account", arguments={"account_id": "ACC-1"}),
            ),
        )
    ]

    metrics = compute_metrics(cases, k=3)

    assert (metrics.action_routing.correct, metrics.action_routing.total) == (0, 1)


def test_an_unpriced_model_makes_the_cost_unknown_not_zero() -> None:
    cases = [
        case("priced", turn(expect={"status": "completed"}, status="completed", cost_usd=0.5)),
        case("unpriced", turn(expect={"status": "completed"}, status="completed", cost_usd=None)),
    ]

    metrics = compute_metrics(cases, k=3)

    assert metrics.usage.cost_usd is None
    assert metrics.usage.unpriced_cases == 1


def test_metrics_with_nothing_to_measure_are_none() -> None:
    metrics = compute_metrics([case("plain", turn(expect={"status": "completed"}, status="completed"))], k=3)

    values = headline(metrics)
    assert values["guardrail_recall"] is None
    assert values["retrieval_mrr"] is None
    assert values["citation_precision"] is None
    assert values["outcome_accuracy"] == 1.0
    assert set(values) == set(HEADLINE_METRICS)


def test_turn_checks_say_what_was_missed() -> None:
    result = case(
        "missed",
        turn(
            expect={
                "status": "paused",
                "doc_ids": ["kb-a"],
                "action": {"name": "issue_refund", "arguments": {"invoice_id": "INV-1001"}},
            },
            status="completed",
            answer_kind="answer",
            retrieved=["kb-b"],
            cited=["kb-b"],
        ),
    )

    assert result.turns[0].failures == [
        "status: expected paused, got completed",
        "action: expected issue_refund(invoice_id=INV-1001), got no action",
        "retrieval: no relevant document in ['kb-b']",
        "citations: kb-b not relevant",
    ]
    assert not result.passed
