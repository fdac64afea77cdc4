"""The issue's two experiments on the real harness, with a model that samples.

**A/A**: the same agent run twice, the stub sampling with two different seeds, compared as `harness eval
compare` compares: over many such pairs, no metric may be flagged (a significant change, p < alpha) in more
than alpha of them, within the binomial margin. **Broken rule**: one guardrail family deleted, run under the
same sampling noise against the intact agent: a significant, blocking regression every time.

Every run is what ``harness eval`` does with ``HARNESS_STUB_TEMPERATURE`` and ``HARNESS_STUB_SEED`` set: the
configuration read from the environment, ``run_dataset`` (a fresh agent per case, its own seed derived from
the run's), ``build_report``, report.json written and read back, and ``compare`` with the project's own
``[tool.harness.gate.compare]``.

The cases are the first 20 of the 48 of the regression set whose outcome the draw can change (a turn that
reached the model with a passage that is not relevant among those it was handed), chosen on the deterministic
run. Every other case passes or fails alike whatever the seed: a pair with no difference, which neither paired
test reads, at the cost of a run. The broken-rule runs add the cases the deleted family decides. The simulated
experiments of ``test_compare_significance.py`` stay: they test the statistics alone, on hundreds of pairs.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import pytest

from agent.config import AgentConfig
from agent.evaluation.compare import compare
from agent.evaluation.dataset import HELDOUT_DATASET, load_dataset
from agent.evaluation.gate import load_gate_config
from agent.evaluation.report import build_report, dataset_info, encode_report, load_report
from agent.evaluation.runner import run_dataset
from agent.evaluation.support_cases import case_messages
from agent.guardrails import check_input, rules
from tests.agent.evaluation.conftest import false_flag_margin

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent.evaluation.compare import Comparison
    from agent.evaluation.report import Report
    from agent.evaluation.results import CaseResult
    from tests.agent.evaluation.conftest import GateRun

GATE = load_gate_config(Path(__file__).parents[3] / "pyproject.toml")
ALPHA = GATE.compare.alpha
TEMPERATURE = 1.0
"""Three passages drawn 66.5%, 24.5% and 9.0% of the time."""
CASES = 20
"""The first this many cases of the regression set that the draw can change."""
REPETITIONS = 40
BROKEN_REPETITIONS = 8
FAMILY = "ignore_instructions"
"""The family that decides most of the regression set's messages (9 of them)."""
RESAMPLES = 20
"""The report's own intervals (compare does not read them: it resamples the paired cases itself)."""


def draw_can_change(result: CaseResult) -> bool:
    """A turn reached the model with more than one passage, one of them not relevant: the passage the stub
    answers from and cites decides whether that turn passes."""
    return any(
        any(node.node == "generate_answer" for node in turn.nodes)
        and turn.expected.doc_ids
        and len(turn.retrieved) > 1
        and not set(turn.retrieved) <= set(turn.expected.doc_ids)
        for turn in result.turns
    )


def write_part(path: Path, ids: set[str]) -> Path:
    """The regression set's lines of these cases, in file order: a dataset ``harness eval --dataset`` takes."""
    lines = HELDOUT_DATASET.read_text(encoding="utf-8").splitlines()
    path.write_text("".join(f"{line}\n" for line in lines if line.strip() and _id(line) in ids), encoding="utf-8")
    return path


class _Id(msgspec.Struct):
    id: str


def _id(line: str) -> str:
    return msgspec.json.decode(line, type=_Id).id


@dataclass(frozen=True)
class Parts:
    sampled: Path
    """The cases the draw can change."""
    broken: Path
    """Those and the cases the deleted family decides."""
    decided: set[str]
    """The cases the deleted family decides."""


@pytest.fixture(scope="module")
def parts(gate_runs: dict[Path, GateRun], tmp_path_factory: pytest.TempPathFactory) -> Parts:
    """Chosen on the deterministic run (temperature 0), which no seed of the experiments touched."""
    root = tmp_path_factory.mktemp("parts")
    results = gate_runs[HELDOUT_DATASET].run.cases
    chosen = set([r.id for r in results if draw_can_change(r)][:CASES])
    cases = load_dataset(HELDOUT_DATASET)
    before = {m: check_input(m).allowed for c in cases for m in case_messages(c)}
    with without_family():
        decided = {c.id for c in cases if any(check_input(m).allowed != before[m] for m in case_messages(c))}
    return Parts(
        write_part(root / "sampled.jsonl", chosen), write_part(root / "broken.jsonl", chosen | decided), decided
    )


@contextmanager
def without_family() -> Iterator[None]:
    """The family deleted from the rules while inside."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "INTENT_RULES", tuple(r for r in rules.INTENT_RULES if r.name != FAMILY))
        yield


@pytest.fixture(scope="module")
def fast_scratch() -> Iterator[None]:
    """The eval's per-case stores on a RAM disk when there is one: the same runs, without the disk's syncs
    (two to three times faster here). ``TMPDIR=/dev/shm harness eval`` does the same."""
    with pytest.MonkeyPatch.context() as patch:
        if os.access("/dev/shm", os.W_OK):
            patch.setattr(tempfile, "tempdir", "/dev/shm")
        yield


def eval_report(dataset: Path, seed: int, out: Path) -> Report:
    """``HARNESS_STUB_TEMPERATURE=1 HARNESS_STUB_SEED=<seed> harness eval --dataset <dataset> --out <out>``."""
    config = AgentConfig.from_env(
        {
            "HARNESS_LLM_PROVIDER": "stub",
            "HARNESS_STUB_TOKEN_DELAY_MS": "0",
            "HARNESS_STUB_TEMPERATURE": str(TEMPERATURE),
            "HARNESS_STUB_SEED": str(seed),
            "HARNESS_DATA_DIR": str(out / "data"),
        }
    )
    cases = load_dataset(dataset)
    run = asyncio.run(run_dataset(cases, config))
    report = build_report(dataset_info(dataset, len(cases)), [run], resamples=RESAMPLES)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_bytes(encode_report(report))
    return load_report(out / "report.json")


def measures_the_agent(metric: str) -> bool:
    """Every metric but the latencies, which measure the machine: a run at a busier moment is truly slower,
    and a flag for it is no false flag."""
    return not metric.endswith("_ms")


@pytest.fixture(scope="module")
def a_a(parts: Parts, fast_scratch: None, tmp_path_factory: pytest.TempPathFactory) -> list[Comparison]:
    root = tmp_path_factory.mktemp("a-a")
    return [
        compare(
            eval_report(parts.sampled, 1000 + 2 * i, root / f"{i}-base"),
            eval_report(parts.sampled, 1001 + 2 * i, root / f"{i}-cand"),
            GATE.compare,
        )
        for i in range(REPETITIONS)
    ]


def test_an_a_a_comparison_of_two_seeds_is_flagged_at_most_alpha(a_a: list[Comparison]) -> None:
    """Per metric: flagged either way in at most alpha of the pairs, regressed in at most alpha / 2 (the seeds
    are exchangeable, so a false flag is as likely one way as the other), each within its binomial margin;
    and the comparison blocks no more often. The pairs must differ, or there is nothing to flag."""
    flagged: Counter[str] = Counter()
    regressed: Counter[str] = Counter()
    for comparison in a_a:
        for verdict in comparison.verdicts:
            if measures_the_agent(verdict.metric) and verdict.verdict in ("improved", "regressed"):
                flagged[verdict.metric] += 1
                regressed[verdict.metric] += verdict.verdict == "regressed"
    blocked = sum(not comparison.passed for comparison in a_a)
    changed = [len(comparison.case_changes) for comparison in a_a]

    assert sum(1 for n in changed if n) >= 0.9 * REPETITIONS, f"the seeds hardly differ: cases changed {changed}"
    assert sum(changed) >= 3 * REPETITIONS, f"too few cases changed to test anything: {changed}"
    margin = false_flag_margin(REPETITIONS, ALPHA)
    assert all(n <= margin for n in flagged.values()), f"flagged (of {REPETITIONS}, margin {margin}): {flagged}"
    half = false_flag_margin(REPETITIONS, ALPHA / 2)
    assert all(n <= half for n in regressed.values()), f"regressed (of {REPETITIONS}, margin {half}): {regressed}"
    assert blocked <= margin, f"{blocked} of {REPETITIONS} A/A comparisons blocked"
    measured = {v.metric for c in a_a for v in c.verdicts if v.verdict != "not measured"}
    assert {"case_pass_rate", "citation_precision", "output_tokens_per_case"} <= measured
    print(
        f"A/A: {REPETITIONS} pairs of {CASES} cases; cases changed {sum(changed)} (at least {min(changed)} a pair); "
        f"flagged {dict(flagged)}; regressed {dict(regressed)}; blocked {blocked}; margins {margin} and {half}"
    )


@pytest.fixture(scope="module")
def broken(parts: Parts, fast_scratch: None, tmp_path_factory: pytest.TempPathFactory) -> list[Comparison]:
    root = tmp_path_factory.mktemp("broken")
    comparisons = []
    for i in range(BROKEN_REPETITIONS):
        intact = eval_report(parts.broken, 5000 + 2 * i, root / f"{i}-base")
        with without_family():
            deleted = eval_report(parts.broken, 5001 + 2 * i, root / f"{i}-cand")
        comparisons.append(compare(intact, deleted, GATE.compare))
    return comparisons


def test_a_broken_rule_family_under_sampling_noise_is_a_significant_regression(
    broken: list[Comparison], parts: Parts
) -> None:
    """Guardrail recall, which no draw can move, regresses significantly and blocks in every repetition. The
    case pass rate carries the answers' noise as well as the lost refusals: it is always lower, but
    significantly so only when the noise happens not to push the other way (figures in docs/evaluation.md)."""
    assert len(parts.decided) >= 6, f"{FAMILY} decides only {sorted(parts.decided)}"
    for comparison in broken:
        verdicts = {v.metric: v for v in comparison.verdicts}
        recall = verdicts["guardrail_recall"]
        assert recall.verdict == "regressed", recall
        assert recall.paired.p_value is not None
        assert recall.paired.p_value < ALPHA
        assert recall.blocking
        assert not comparison.passed
    pass_rate = [{v.metric: v for v in c.verdicts}["case_pass_rate"] for c in broken]
    effects = [v.paired.effect for v in pass_rate]
    assert all(effect is not None for effect in effects), pass_rate
    lower = sum(1 for effect in effects if effect is not None and effect < 0)
    assert lower >= BROKEN_REPETITIONS - 1, f"lower in only {lower} of {BROKEN_REPETITIONS}: {effects}"
    assert sum(effect for effect in effects if effect is not None) < 0, effects
    assert not any(v.verdict == "improved" for v in pass_rate)
    noise = [
        change.case_id
        for comparison in broken
        for change in comparison.case_changes
        if change.case_id not in parts.decided
    ]
    assert noise, "the sampling moved no case beside the deleted family's: there was no noise to see through"
    print(
        f"broken rule: {BROKEN_REPETITIONS} pairs, recall regressed and blocking in all; case pass rate regressed "
        f"in {sum(v.verdict == 'regressed' for v in pass_rate)} "
        f"{[(v.paired.worse, v.paired.better, v.paired.p_value) for v in pass_rate]}; noise {len(noise)} case changes"
    )
