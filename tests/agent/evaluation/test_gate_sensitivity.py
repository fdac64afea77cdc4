"""The gate cannot be fooled: delete any guardrail rule family, layer or action and the gate fails.

A rule family's messages are also kept from the learned classifier when the family is deleted: where the
classifier would refuse them anyway the guardrail as a whole lost nothing, but the family would still be gone.

Each experiment runs the real support graph in-process on the stub, on the two datasets ``make eval-gate``
reads (the sealed held-out set and the regression set the rules were written against), and checks the
project's own ``[tool.harness.gate]`` against the result. A deletion the gate let through would mean a
rule family that no threshold protects.

The stub is deterministic and a deleted rule changes only the messages that rule decided, so each
experiment re-runs only the cases with a message whose input verdict the deletion changes (or, for an
action, every case that proposes or expects one) and keeps the baseline's results for the rest
(``run_dataset``'s ``done``, as ``--resume`` does): the same results as a full run, in a fraction of the time.
The broken-rule comparison is the same experiment read by ``compare``: a significant regression.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import agent.guardrails.input as input_guardrail
from agent.actions import ActionRegistry
from agent.actions.registry import DeleteAccount, IssueRefund
from agent.config import AgentConfig, StubConfig
from agent.evaluation.compare import compare
from agent.evaluation.dataset import load_dataset
from agent.evaluation.gate import evaluate_gate, load_gate_config
from agent.evaluation.report import build_report, dataset_info
from agent.evaluation.runner import run_dataset
from agent.evaluation.support_cases import case_messages
from agent.guardrails import check_input, rules
from agent.guardrails.input import InputVerdict, check_rules
from agent.guardrails.pii import find_pii
from tests.agent.evaluation.conftest import GATE_DATASETS, GateRun

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from agent.actions.ledger import Ledger
    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.report import Report
    from agent.evaluation.results import CaseResult
    from agent.guardrails.reasons import PiiReason

ROOT = Path(__file__).parents[3]
GATE = load_gate_config(ROOT / "pyproject.toml")
FAMILIES = sorted({rule.name for rule in rules.INTENT_RULES})
PII_REASONS: tuple[PiiReason, ...] = ("pii_payment_card", "pii_national_id", "pii_bank_account")
ACTIONS: dict[str, type[IssueRefund | DeleteAccount]] = {"issue_refund": DeleteAccount, "delete_account": IssueRefund}
"""Each action, and the one left when it is deleted."""


@dataclass(frozen=True)
class Baseline:
    path: Path
    cases: list[GraphCase]
    results: list[CaseResult]
    report: Report


def stub_config(root: Path) -> AgentConfig:
    return AgentConfig(data_dir=root / "data", stub=StubConfig(token_delay_ms=0))


async def run(
    path: Path, cases: list[GraphCase], root: Path, done: list[CaseResult]
) -> tuple[list[CaseResult], Report]:
    result = await run_dataset(cases, stub_config(root), concurrency=8, done=done)
    return result.cases, build_report(dataset_info(path, len(cases)), [result], resamples=50)


@pytest.fixture(scope="module")
def baselines(gate_runs: dict[Path, GateRun]) -> list[Baseline]:
    made = []
    for path in GATE_DATASETS:
        cases, run = load_dataset(path), gate_runs[path].run
        report = build_report(dataset_info(path, len(cases)), [run], resamples=50)
        made.append(Baseline(path, cases, run.cases, report))
    return made


def test_the_gate_passes_the_agent_as_it_is(baselines: list[Baseline]) -> None:
    for baseline in baselines:
        result = evaluate_gate(baseline.report, GATE)
        assert result.passed, [(c.metric, c.threshold, c.actual) for c in result.failures]


def messages(case: GraphCase) -> Iterator[str]:
    return iter(case_messages(case))


async def experiment(
    baseline: Baseline, root: Path, affected: Callable[[GraphCase, CaseResult], bool]
) -> Report | None:
    """The dataset with the deletion in place: the affected cases re-run, the others' results kept."""
    keep = [r for c, r in zip(baseline.cases, baseline.results, strict=True) if not affected(c, r)]
    if len(keep) == len(baseline.results):
        return None
    _, report = await run(baseline.path, baseline.cases, root, keep)
    return report


def verdicts_before(baselines: list[Baseline]) -> dict[str, dict[str, bool]]:
    return {b.path.stem: {m: check_input(m).allowed for c in b.cases for m in messages(c)} for b in baselines}


async def gate_failures_without(
    baselines: list[Baseline], tmp_path: Path, before: dict[str, dict[str, bool]]
) -> dict[str, list[str]]:
    """Per dataset the deletion changed anything on: the gate's failing metrics (empty: it passed)."""
    failures: dict[str, list[str]] = {}
    for baseline in baselines:
        was = before[baseline.path.stem]

        def changed(case: GraphCase, _: CaseResult, was: dict[str, bool] = was) -> bool:
            return any(check_input(m).allowed != was[m] for m in messages(case))

        report = await experiment(baseline, tmp_path / baseline.path.stem, changed)
        if report is not None:
            failures[baseline.path.stem] = [c.metric for c in evaluate_gate(report, GATE).failures]
    return failures


def decided_by(baselines: list[Baseline], family: str) -> set[str]:
    """The messages the family refuses in the agent as it is."""
    return {m for b in baselines for c in b.cases for m in messages(c) if check_rules(m).rule == family}


@pytest.mark.parametrize("family", FAMILIES)
async def test_deleting_a_rule_family_fails_the_gate(
    family: str, baselines: list[Baseline], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The family's own messages are kept from the learned classifier too: it would refuse some of them
    anyway (``authority_claim``'s and ``refusal_suppression``'s all), which is the point of a second layer but
    would hide from the gate a family that no longer works."""
    before = verdicts_before(baselines)
    own = decided_by(baselines, family)
    learned = input_guardrail._learned
    monkeypatch.setattr(rules, "INTENT_RULES", tuple(r for r in rules.INTENT_RULES if r.name != family))
    monkeypatch.setattr(
        input_guardrail, "_learned", lambda text: InputVerdict(allowed=True) if text.raw in own else learned(text)
    )

    failures = await gate_failures_without(baselines, tmp_path, before)

    assert failures, f"no message of either dataset is decided by {family}: the gate cannot see it go"
    assert any(failures.values()), f"without {family} the gate still passes: {failures}"


async def test_deleting_the_learned_classifier_fails_the_gate(
    baselines: list[Baseline], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = verdicts_before(baselines)
    monkeypatch.setattr(input_guardrail, "_learned", lambda text: InputVerdict(allowed=True))

    failures = await gate_failures_without(baselines, tmp_path, before)

    assert "guardrail_recall" in failures.get("support-sealed-heldout", []), failures


async def test_deleting_the_pasted_secrets_layer_fails_the_gate(
    baselines: list[Baseline], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = verdicts_before(baselines)
    monkeypatch.setattr(input_guardrail, "find_pasted_secret", lambda text: None)

    failures = await gate_failures_without(baselines, tmp_path, before)

    assert any(failures.values()), failures


@pytest.mark.parametrize("reason", PII_REASONS)
async def test_deleting_a_personal_number_kind_fails_the_gate(
    reason: PiiReason, baselines: list[Baseline], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = verdicts_before(baselines)

    monkeypatch.setattr(input_guardrail, "find_pii", lambda text: None if find_pii(text) == reason else find_pii(text))

    failures = await gate_failures_without(baselines, tmp_path, before)

    assert any(failures.values()), failures


def proposes_or_expects_an_action(case: GraphCase, result: CaseResult) -> bool:
    expected = any(
        t.status in ("paused", "rejected") or (t.answer_kind or "").startswith("action")
        for t in case.expect.turns or ()
    )
    happened = any(t.action is not None or (t.answer_kind or "").startswith("action") for t in result.turns)
    return expected or happened


@pytest.mark.parametrize("action", sorted(ACTIONS))
async def test_deleting_an_action_fails_the_gate(
    action: str, baselines: list[Baseline], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remaining = ACTIONS[action]

    def without(cls: type[ActionRegistry], ledger: Ledger) -> ActionRegistry:
        return cls([remaining(ledger)])

    monkeypatch.setattr(ActionRegistry, "default", classmethod(without))

    for baseline in baselines:
        report = await experiment(baseline, tmp_path / baseline.path.stem, proposes_or_expects_an_action)
        assert report is not None
        failing = {c.metric for c in evaluate_gate(report, GATE).failures}
        assert "action_routing_accuracy" in failing or "outcome_accuracy_paused" in failing, failing


async def test_a_broken_rule_family_is_a_significant_regression(
    baselines: list[Baseline], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's broken-rule experiment: the family that decides most messages, switched off, on the
    regression set (where the rules catch everything) and compared with the agent as it is."""
    baseline = baselines[1]
    before = verdicts_before([baseline])[baseline.path.stem]
    monkeypatch.setattr(rules, "INTENT_RULES", tuple(r for r in rules.INTENT_RULES if r.name != "ignore_instructions"))

    def changed(case: GraphCase, _: CaseResult) -> bool:
        return any(check_input(m).allowed != before[m] for m in messages(case))

    broken = await experiment(baseline, tmp_path, changed)
    assert broken is not None

    comparison = compare(baseline.report, broken, GATE.compare)

    verdicts = {v.metric: v for v in comparison.verdicts}
    recall = verdicts["guardrail_recall"]
    assert recall.verdict == "regressed"
    assert recall.paired.test == "mcnemar_exact"
    assert recall.paired.p_value is not None
    assert recall.paired.p_value < GATE.compare.alpha
    assert recall.blocking
    assert verdicts["case_pass_rate"].verdict == "regressed"
    assert not comparison.passed
    same = compare(baseline.report, baseline.report, GATE.compare)
    assert same.passed
    assert all(v.verdict in ("no significant change", "not measured") for v in same.verdicts)


async def test_two_runs_of_the_same_agent_are_no_significant_change(baselines: list[Baseline], tmp_path: Path) -> None:
    """The real A/A: the regression set run again through the real graph. Only the timings differ (the
    machine's noise); no verdict blocks, and every outcome metric is no significant change."""
    baseline = baselines[1]
    _, again = await run(baseline.path, baseline.cases, tmp_path, [])

    comparison = compare(baseline.report, again, GATE.compare)

    assert comparison.passed
    outcomes = [v for v in comparison.verdicts if not v.metric.endswith("_ms")]
    assert outcomes
    assert all(v.verdict in ("no significant change", "not measured") for v in outcomes)
    assert comparison.case_changes == []
