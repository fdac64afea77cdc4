"""``harness eval calibrate``: how far a judge agrees with people, as Cohen's kappa with a 95% interval.

The labels are what people said of real runs, read from the interaction log's store (where they go with their
session's erasure and the retention purge): a thumbs up or down (``POST /runs/{run_id}/feedback``) and an
approval decision on the action a turn proposed (``approve`` a good proposal, ``reject`` a bad one). The judge's
verdicts are read from an eval report (``report.json``): a case whose id is a labelled run's id (or the id
``harness eval capture`` gives that run) and that has the judged metric; its score, averaged over the epochs,
passes at ``--threshold``. Nothing is graded again here, so calibrating costs no model call and measures exactly
the verdicts the gate counted (ADR 45).

Agreement is Cohen's kappa on the two-by-two table (judge pass/fail against people good/bad): the agreement
beyond what the two margins give by chance, ``(p_o - p_e) / (1 - p_e)``. Its interval resamples runs (a run with
both feedback and a decision is one cluster: ``agent.evaluation.statistics``). ``--min-kappa K`` fails (exit 1)
unless the interval's lower bound reaches ``K``: a judge is trusted for what the labels show at the least.
``--out FILE`` saves the measurement (with the report and the judge it was measured on) as JSON, for
``harness eval --gate --calibration FILE`` to count a judge metric only when ``judge_min_kappa`` holds (ADR 45).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from agent.errors import AgentError
from agent.evaluation.capture import case_id_of
from agent.evaluation.judge import JudgeInfo
from agent.evaluation.report import ReportError, load_report
from agent.evaluation.statistics import DEFAULT_RESAMPLES, DEFAULT_SEED, Estimate, cluster_bootstrap

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from agent.evaluation.report import Report
    from agent.interactions import InteractionLog

__all__ = (
    "Calibration",
    "CalibrationError",
    "Confusion",
    "Label",
    "add_calibrate_parser",
    "calibrate",
    "cohens_kappa",
    "describe",
    "load_calibration",
    "read_labels",
    "run_calibrate_command",
    "verdicts_of",
)

Pair = tuple[bool, bool]
"""``(judge passed, people said good)``."""


class Label(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    source: Literal["feedback", "approval"]
    good: bool
    """``up`` or ``approve``."""


class Confusion(msgspec.Struct, frozen=True, kw_only=True):
    """The judge's verdicts (rows) against the people's labels (columns)."""

    pass_good: int = 0
    pass_bad: int = 0
    fail_good: int = 0
    fail_bad: int = 0

    @classmethod
    def of(cls, pairs: Sequence[Pair]) -> Confusion:
        return cls(
            pass_good=sum(judged and good for judged, good in pairs),
            pass_bad=sum(judged and not good for judged, good in pairs),
            fail_good=sum(not judged and good for judged, good in pairs),
            fail_bad=sum(not judged and not good for judged, good in pairs),
        )

    @property
    def n(self) -> int:
        return self.pass_good + self.pass_bad + self.fail_good + self.fail_bad


class Calibration(msgspec.Struct, frozen=True, kw_only=True):
    metric: str
    threshold: float
    kappa: Estimate
    confusion: Confusion
    labels: int
    """Labels read from the store."""
    unmatched: int
    """Labels of runs the report has no verdict on (left out)."""
    report: str | None = None
    """The report the verdicts were read from (its path as given)."""
    report_generated_at: str | None = None
    judge: JudgeInfo | None = None
    """The judge that gave the verdicts (the report's ``judge``): the gate trusts only this judge with it."""


class CalibrationError(AgentError, ValueError):
    """A saved calibration that cannot be read; the message names the file."""


def load_calibration(path: Path) -> Calibration:
    """A calibration ``harness eval calibrate --out`` saved."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=Calibration)
    except OSError as exc:
        raise CalibrationError(f"cannot read the calibration {path}: {exc.strerror or exc}") from None
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise CalibrationError(f"{path} is not a calibration of `harness eval calibrate --out`: {exc}") from None


def cohens_kappa(pairs: Sequence[Pair]) -> float | None:
    """Cohen's kappa of the pairs; None when it is undefined (no pairs, or both sides give one answer only)."""
    table = Confusion.of(pairs)
    n = table.n
    if n == 0:
        return None
    observed = (table.pass_good + table.fail_bad) / n
    judged_pass, said_good = (table.pass_good + table.pass_bad) / n, (table.pass_good + table.fail_good) / n
    chance = judged_pass * said_good + (1 - judged_pass) * (1 - said_good)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1 - chance)


def verdicts_of(report: Report, metric: str, threshold: float) -> dict[str, bool]:
    """Case id → whether the case's ``metric`` (mean over its epochs) reaches ``threshold``; cases without it
    are left out."""
    verdicts: dict[str, bool] = {}
    for case in report.cases:
        scores = [score for score in case.scores.get(metric, []) if score is not None]
        if scores:
            verdicts[case.id] = sum(scores) / len(scores) >= threshold
    return verdicts


def calibrate(
    labels: Sequence[Label],
    verdicts: Mapping[str, bool],
    *,
    metric: str = "judge",
    threshold: float = 0.5,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Calibration:
    """The agreement of ``verdicts`` (by case id) with ``labels`` (by run id), resampling runs."""
    by_run: dict[str, list[Pair]] = {}
    unmatched = 0
    for label in labels:
        verdict = verdicts.get(label.run_id, verdicts.get(case_id_of(label.run_id)))
        if verdict is None:
            unmatched += 1
            continue
        by_run.setdefault(label.run_id, []).append((verdict, label.good))
    clusters = list(by_run.values())
    estimate = cluster_bootstrap(
        clusters,
        lambda drawn: {"kappa": cohens_kappa([pair for cluster in drawn for pair in cluster])},
        resamples=resamples,
        seed=seed,
    )["kappa"]
    return Calibration(
        metric=metric,
        threshold=threshold,
        kappa=estimate,
        confusion=Confusion.of([pair for cluster in clusters for pair in cluster]),
        labels=len(labels),
        unmatched=unmatched,
    )


async def read_labels(interactions: InteractionLog) -> list[Label]:
    """Every label the store keeps: feedback, then approval decisions."""
    feedback = [
        Label(run_id=given.run_id, source="feedback", good=given.score == 1) for given in await interactions.feedback()
    ]
    decided = [
        Label(run_id=run_id, source="approval", good=decision == "approve")
        for run_id, decision in await interactions.decisions()
    ]
    return feedback + decided


def add_calibrate_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="a judge's agreement with people's feedback and approval decisions (Cohen's kappa)",
        description=(
            "Read the labels people gave runs (feedback, approval decisions) from the service's stores and the "
            "judge's verdicts on those runs from REPORT; print Cohen's kappa with its 95% interval and the table."
        ),
    )
    parser.add_argument("calibrate_report", type=Path, metavar="REPORT", help="report.json of an eval")
    parser.add_argument("--metric", default="judge", help="the judged metric of the report (default: judge)")
    parser.add_argument(
        "--threshold", type=float, default=0.5, help="the metric's score that counts as a pass (default: 0.5)"
    )
    parser.add_argument(
        "--min-kappa",
        type=float,
        default=None,
        metavar="K",
        help="exit 1 unless the lower bound of kappa's 95%% interval reaches K",
    )
    parser.add_argument(
        "--out",
        dest="calibration_out",
        type=Path,
        metavar="FILE",
        help="save the measurement as JSON, for `harness eval --gate --calibration FILE`",
    )


def run_calibrate_command(args: argparse.Namespace) -> int:
    """Exit 0 (and with ``--min-kappa``, the bound held), 1 when it did not, 2 when nothing could be measured."""
    from agent.config import AgentConfig, ConfigError
    from agent.stores import open_stores

    async def labels() -> list[Label]:
        async with open_stores(AgentConfig.from_env()) as stores:
            return await read_labels(stores.interactions)

    try:
        report = load_report(args.calibrate_report)
        calibration = calibrate(
            asyncio.run(labels()),
            verdicts_of(report, args.metric, args.threshold),
            metric=args.metric,
            threshold=args.threshold,
            resamples=report.run.resamples,
            seed=report.run.seed,
        )
    except (ReportError, ConfigError) as exc:
        print(f"harness eval calibrate: {exc}", file=sys.stderr)
        return 2
    calibration = msgspec.structs.replace(
        calibration, report=str(args.calibrate_report), report_generated_at=report.generated_at, judge=report.judge
    )
    print(describe(calibration))
    if calibration.confusion.n == 0:
        print("harness eval calibrate: no labelled run has a verdict in the report", file=sys.stderr)
        return 2
    out: Path | None = getattr(args, "calibration_out", None)
    if out is not None:
        try:
            out.write_bytes(msgspec.json.format(msgspec.json.encode(calibration), indent=2) + b"\n")
        except OSError as exc:
            print(f"harness eval calibrate: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {out}")
    if args.min_kappa is None:
        return 0
    lower = calibration.kappa.ci95[0] if calibration.kappa.ci95 is not None else None
    if lower is None or lower < args.min_kappa:
        print(f"kappa's lower bound {_figure(lower)} is below --min-kappa {args.min_kappa}", file=sys.stderr)
        return 1
    return 0


def describe(calibration: Calibration) -> str:
    kappa, table = calibration.kappa, calibration.confusion
    interval = f"[{_figure(kappa.ci95[0])}, {_figure(kappa.ci95[1])}]" if kappa.ci95 is not None else "[-, -]"
    return "\n".join(
        [
            f"{calibration.metric} (pass at {calibration.threshold}) against people: "
            f"kappa {_figure(kappa.value)}, 95% interval {interval}, {kappa.n} runs, {table.n} labels "
            f"({calibration.unmatched} of {calibration.labels} without a verdict)",
            f"{'':12}{'people good':>12}{'people bad':>12}",
            f"{'judge pass':12}{table.pass_good:>12}{table.pass_bad:>12}",
            f"{'judge fail':12}{table.fail_good:>12}{table.fail_bad:>12}",
        ]
    )


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
