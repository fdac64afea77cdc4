"""``harness eval redteam``: generate the variants, screen them with the input guardrail, report per strategy.

A variant is *refused* when the guardrail refuses any of its turns. Per strategy, per family and over all:
recall (attacks refused / attacks), precision (attacks refused / everything refused, the look-alikes
dressed the same way being the only thing that can be refused wrongly) and the false-refusal rate of the
look-alikes, each with a 95% interval from the project's bootstrap (``agent.evaluation.statistics``: every
variant a cluster of one, drawn with replacement). ``--out DIR`` writes ``redteam-report.json`` and
``redteam-dataset.jsonl``, the same variants as support cases (``harness eval --dataset`` reads it).

Exit codes: 0 done, 2 the command could not run (an unknown strategy, an unreadable seeds file).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.redteam import DEFAULT_GENERATOR_SEED, SEEDS_FILE, STRATEGIES, dataset_lines, generate, load_seeds
from agent.evaluation.statistics import DEFAULT_RESAMPLES, DEFAULT_SEED, Estimate, cluster_bootstrap
from agent.guardrails import check_input
from agent.guardrails.input import check_learned, check_rules

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from agent.evaluation.redteam import Variant
    from agent.guardrails import InputVerdict

__all__ = ("LAYERS", "RedteamGroup", "add_redteam_parser", "run_redteam_command", "score_variants")


def _rules_then_classifier(message: str) -> InputVerdict:
    verdict = check_rules(message)
    return verdict if not verdict.allowed else check_learned(message)


LAYERS: dict[str, Callable[[str], InputVerdict]] = {
    "input": check_input,
    "rules": check_rules,
    "classifier": check_learned,
    "rules+classifier": _rules_then_classifier,
}
"""What screens a turn: the input guardrail as the agent runs it, its rule layers alone, the learned
classifier alone, or the rules and then the classifier on what they allow (either may refuse)."""
REPORT_NAME = "redteam-report.json"
DATASET_NAME = "redteam-dataset.jsonl"


class RedteamGroup(msgspec.Struct, frozen=True, kw_only=True):
    attacks: int
    benign: int
    attacks_refused: int
    benign_refused: int
    recall: Estimate
    precision: Estimate
    false_refusal_rate: Estimate
    by_layer: dict[str, int] = msgspec.field(default_factory=dict)
    """Refused variants by the layer that refused (``rules``, ``classifier``)."""


class RedteamReport(msgspec.Struct, frozen=True, kw_only=True):
    generator_seed: int
    variants_per_seed: int
    layer: str
    bootstrap_seed: int
    overall: RedteamGroup
    by_strategy: dict[str, RedteamGroup]
    by_family: dict[str, RedteamGroup]
    mean_screen_us: float
    """Mean wall time of one screened message, in microseconds (this machine, this run)."""


def add_redteam_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "redteam",
        help="generate attack variants and benign look-alikes, screen them, report recall and precision",
        description="Derive variants of seed attacks and look-alikes by every strategy and screen them with "
        "the input guardrail: recall, precision and false refusals per strategy and family, with 95% intervals.",
    )
    parser.add_argument(
        "--generator-seed",
        type=int,
        default=DEFAULT_GENERATOR_SEED,
        help=f"seeds the variants (default: {DEFAULT_GENERATOR_SEED})",
    )
    parser.add_argument("--variants", type=int, default=2, help="variants per seed and strategy (default: 2)")
    parser.add_argument(
        "--strategy", action="append", dest="strategies", choices=list(STRATEGIES), help="only these (repeat)"
    )
    parser.add_argument("--seeds", type=Path, default=SEEDS_FILE, help="the seeds file (default: the bundled one)")
    parser.add_argument(
        "--layer", choices=list(LAYERS), default="input", help="what screens: the whole guardrail (default), or one"
    )
    parser.add_argument("--bootstrap-seed", type=int, default=DEFAULT_SEED, help="of the intervals' draws")
    parser.add_argument("--out", type=Path, help=f"write {REPORT_NAME} and {DATASET_NAME} here")
    return parser


def run_redteam_command(args: argparse.Namespace) -> int:
    try:
        attacks, benign = load_seeds(args.seeds)
        variants = generate(
            attacks, benign, seed=args.generator_seed, variants=args.variants, strategies=args.strategies
        )
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
        print(f"harness eval redteam: {exc}")
        return 2
    report = score_variants(variants, LAYERS[args.layer], seed=args.bootstrap_seed)
    report = msgspec.structs.replace(
        report, generator_seed=args.generator_seed, variants_per_seed=args.variants, layer=args.layer
    )
    for line in report_lines(report):
        print(line)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / REPORT_NAME).write_bytes(msgspec.json.format(msgspec.json.encode(report)) + b"\n")
        (args.out / DATASET_NAME).write_text("\n".join(dataset_lines(variants)) + "\n", encoding="utf-8")
        print(f"wrote {args.out / REPORT_NAME}\nwrote {args.out / DATASET_NAME}")
    return 0


def score_variants(
    variants: Sequence[Variant],
    screen: Callable[[str], InputVerdict],
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
) -> RedteamReport:
    """Screen every turn of every variant; the figures over all, per strategy and per family."""
    screen("warm up: the tables and weights load before the clock starts")
    outcomes: list[tuple[Variant, str | None]] = []
    screened, started = 0, time.perf_counter()
    for variant in variants:
        layer = None
        for message in variant.messages:
            screened += 1
            verdict = screen(message)
            if not verdict.allowed:
                layer = verdict.layer or "rules"
                break
        outcomes.append((variant, layer))
    mean_us = round((time.perf_counter() - started) / max(screened, 1) * 1e6, 1)
    by_strategy = {name: [o for o in outcomes if o[0].strategy == name] for name in STRATEGIES}
    families = sorted({v.family for v in variants})
    return RedteamReport(
        generator_seed=DEFAULT_GENERATOR_SEED,
        variants_per_seed=1,
        layer="input",
        bootstrap_seed=seed,
        overall=_group(outcomes, seed, resamples),
        by_strategy={name: _group(group, seed, resamples) for name, group in by_strategy.items() if group},
        by_family={f: _group([o for o in outcomes if o[0].family == f], seed, resamples) for f in families},
        mean_screen_us=mean_us,
    )


def _group(outcomes: Sequence[tuple[Variant, str | None]], seed: int, resamples: int) -> RedteamGroup:
    clusters = [[(variant.kind == "attack", layer is not None)] for variant, layer in outcomes]

    def statistic(sample: Sequence[Sequence[tuple[bool, bool]]]) -> dict[str, float | None]:
        tp = sum(1 for ((attack, refused),) in sample if attack and refused)
        fp = sum(1 for ((attack, refused),) in sample if not attack and refused)
        positives = sum(1 for ((attack, _),) in sample if attack)
        negatives = len(sample) - positives
        return {
            "recall": round(tp / positives, 6) if positives else None,
            "precision": round(tp / (tp + fp), 6) if tp + fp else None,
            "false_refusal_rate": round(fp / negatives, 6) if negatives else None,
        }

    attacks = sum(1 for v, _ in outcomes if v.kind == "attack")
    attacks_refused = sum(1 for v, layer in outcomes if v.kind == "attack" and layer is not None)
    benign_refused = sum(1 for v, layer in outcomes if v.kind == "benign" and layer is not None)
    counts = {
        "recall": attacks,
        "precision": attacks_refused + benign_refused,
        "false_refusal_rate": len(outcomes) - attacks,
    }
    estimates = cluster_bootstrap(clusters, statistic, counts=counts, resamples=resamples, seed=seed)
    layers: dict[str, int] = {}
    for _, layer in outcomes:
        if layer is not None:
            layers[layer] = layers.get(layer, 0) + 1
    return RedteamGroup(
        attacks=attacks,
        benign=len(outcomes) - attacks,
        attacks_refused=attacks_refused,
        benign_refused=benign_refused,
        recall=estimates["recall"],
        precision=estimates["precision"],
        false_refusal_rate=estimates["false_refusal_rate"],
        by_layer=dict(sorted(layers.items())),
    )


def report_lines(report: RedteamReport) -> list[str]:
    """One line per strategy and family, then the overall figures."""

    def figure(estimate: Estimate) -> str:
        if estimate.value is None:
            return "   -                "
        low, high = estimate.ci95 or (estimate.value, estimate.value)
        return f"{estimate.value:.3f} [{low:.3f}, {high:.3f}]"

    def line(name: str, group: RedteamGroup) -> str:
        return (
            f"{name:<22} attacks {group.attacks_refused:>4}/{group.attacks:<4} recall {figure(group.recall)}  "
            f"precision {figure(group.precision)}  false refusals {group.benign_refused:>3}/{group.benign:<4} "
            f"{figure(group.false_refusal_rate)}"
        )

    lines = [
        f"red team: layer {report.layer}, generator seed {report.generator_seed}, {report.variants_per_seed} per seed"
    ]
    lines += ["by strategy:", *(line(name, group) for name, group in report.by_strategy.items())]
    lines += ["by family:", *(line(name, group) for name, group in report.by_family.items())]
    lines += [line("overall", report.overall), f"mean screening time: {report.mean_screen_us} us a message"]
    return lines
