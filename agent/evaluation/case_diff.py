"""Per case, what changed since a baseline report: fixed, regressed, flaky now, or the same."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agent.evaluation.report import Report

__all__ = ("CaseChange", "case_changes")

CaseChange = Literal["fixed", "regressed", "better", "worse", "same", "new"]
"""``fixed``/``regressed``: passed in no epoch / every epoch before and every / no epoch now; ``better``/
``worse``: a larger / smaller share of epochs passed; ``new``: the baseline has no such case."""


def case_changes(baseline: Report | None, report: Report) -> dict[str, CaseChange]:
    """Each case of ``report`` against the same id in ``baseline`` (empty without a baseline)."""
    if baseline is None:
        return {}
    before = {case.id: case for case in baseline.cases}
    changes: dict[str, CaseChange] = {}
    for case in report.cases:
        old = before.get(case.id)
        if old is None:
            changes[case.id] = "new"
            continue
        was, now = old.epochs_passed / old.epochs, case.epochs_passed / case.epochs
        if was == now:
            changes[case.id] = "same"
        elif now == 1.0 and was == 0.0:
            changes[case.id] = "fixed"
        elif now == 0.0 and was == 1.0:
            changes[case.id] = "regressed"
        else:
            changes[case.id] = "better" if now > was else "worse"
    return changes
