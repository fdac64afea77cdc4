"""What ``harness eval online`` prints: each assistant's and scorer's pass rate over a window of stored online
scores, with the 95% interval a bootstrap over runs gives (``statistics.cluster_bootstrap``, each run a cluster),
and, against a baseline window, the change with Fisher's exact test (``significance.unpaired_test``): ``regressed``
when the pass rate fell and p is below the gate's ``alpha``, the gate's own rule for a significant change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from agent.evaluation.significance import UnpairedTest, unpaired_test
from agent.evaluation.statistics import DEFAULT_SEED, Estimate, cluster_bootstrap

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.evaluation.online import OnlineScore

__all__ = ("OnlineReport", "OnlineRow", "Window", "online_report")

Verdict = Literal["regressed", "improved", "no significant change", "not measured"]


class Window(msgspec.Struct, frozen=True, kw_only=True):
    since: str
    until: str
    """Runs that finished at or after ``since`` and before ``until`` (RFC 3339)."""


class OnlineRow(msgspec.Struct, frozen=True, kw_only=True):
    assistant: str
    scorer: str
    runs: int
    passed: int
    pass_rate: Estimate
    """The pass rate over the window's scored runs, with its 95% interval."""
    baseline: Estimate | None = None
    """The same over the baseline window, when one was asked for."""
    change: UnpairedTest | None = None
    verdict: Verdict | None = None


class OnlineReport(msgspec.Struct, frozen=True, kw_only=True):
    window: Window
    baseline: Window | None
    alpha: float
    rows: list[OnlineRow]

    @property
    def regressed(self) -> bool:
        return any(row.verdict == "regressed" for row in self.rows)


def online_report(
    window: Window,
    scores: Sequence[OnlineScore],
    *,
    baseline: Window | None = None,
    baseline_scores: Sequence[OnlineScore] = (),
    alpha: float = 0.05,
    seed: int = DEFAULT_SEED,
) -> OnlineReport:
    """One row per assistant and scorer seen in either window, sorted."""
    now, before = _by_key(scores), _by_key(baseline_scores)
    rows = []
    for key in sorted(now.keys() | (before.keys() if baseline is not None else set())):
        passes = now.get(key, [])
        row = OnlineRow(
            assistant=key[0], scorer=key[1], runs=len(passes), passed=sum(passes), pass_rate=_rate(passes, seed)
        )
        if baseline is not None:
            old = before.get(key, [])
            change = unpaired_test(old, passes, seed=seed)
            row = msgspec.structs.replace(
                row, baseline=_rate(old, seed), change=change, verdict=_verdict(change, alpha)
            )
        rows.append(row)
    return OnlineReport(window=window, baseline=baseline, alpha=alpha, rows=rows)


def _by_key(scores: Sequence[OnlineScore]) -> dict[tuple[str, str], list[bool]]:
    found: dict[tuple[str, str], list[bool]] = {}
    for score in scores:
        found.setdefault((score.assistant, score.scorer), []).append(score.passed)
    return found


def _rate(passes: list[bool], seed: int) -> Estimate:
    estimates = cluster_bootstrap(
        [[passed] for passed in passes],
        lambda runs: {"pass_rate": round(sum(r[0] for r in runs) / len(runs), 6) if runs else None},
        seed=seed,
    )
    return estimates["pass_rate"]


def _verdict(change: UnpairedTest, alpha: float) -> Verdict:
    if change.effect is None or change.p_value is None:
        return "not measured"
    if change.p_value < alpha and change.effect != 0:
        return "regressed" if change.effect < 0 else "improved"
    return "no significant change"
