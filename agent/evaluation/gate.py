"""The quality gate: thresholds from ``[tool.harness.gate]`` in pyproject.toml, checked against a report.

A key is ``min_<metric>`` or ``max_<metric>`` for a metric of ``HEADLINE_METRICS``; the bound must agree with
the metric's direction, so a typo or a reversed bound is an error, not a gate that silently passes. A metric
the gate names but the run could not measure fails: the gate never passes on missing evidence.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from agent.errors import AgentError
from agent.evaluation.headline import HEADLINE_METRICS, headline

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent.evaluation.report import Report

__all__ = (
    "GateCheck",
    "GateConfigError",
    "GateResult",
    "Threshold",
    "evaluate_gate",
    "find_pyproject",
    "load_thresholds",
    "parse_thresholds",
)

_BOUND_OF_DIRECTION = {"higher": "min", "lower": "max"}


class GateConfigError(AgentError, ValueError):
    """Thresholds that cannot be used; the message names the key."""


class Threshold(msgspec.Struct, frozen=True, kw_only=True):
    metric: str
    bound: Literal["min", "max"]
    value: float


class GateCheck(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    metric: str
    bound: Literal["min", "max"]
    threshold: float
    actual: float | None
    passed: bool


class GateResult(msgspec.Struct, frozen=True, kw_only=True):
    checks: list[GateCheck]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failures(self) -> list[GateCheck]:
        return [check for check in self.checks if not check.passed]


def find_pyproject(start: Path | None = None) -> Path:
    """The nearest pyproject.toml at or above ``start`` (the working directory) with a gate table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "gate" in _harness_table(candidate):
            return candidate
    raise GateConfigError(f"no pyproject.toml with a [tool.harness.gate] table at or above {here}")


def load_thresholds(pyproject: Path) -> list[Threshold]:
    table = _harness_table(pyproject).get("gate")
    if not isinstance(table, dict):
        raise GateConfigError(f"{pyproject} has no [tool.harness.gate] table")
    try:
        return parse_thresholds(table)
    except GateConfigError as exc:
        raise GateConfigError(f"{pyproject}: {exc}") from None


def parse_thresholds(table: Mapping[str, object]) -> list[Threshold]:
    thresholds: list[Threshold] = []
    for key, value in table.items():
        bound, _, metric = key.partition("_")
        if bound not in ("min", "max") or metric not in HEADLINE_METRICS:
            known = ", ".join(sorted(HEADLINE_METRICS))
            raise GateConfigError(f"[tool.harness.gate] {key!r} must be min_<metric> or max_<metric>, one of: {known}")
        expected = _BOUND_OF_DIRECTION[HEADLINE_METRICS[metric].direction]
        if bound != expected:
            raise GateConfigError(
                f"[tool.harness.gate] {key!r}: {metric} is better when {HEADLINE_METRICS[metric].direction}, "
                f"so its threshold is {expected}_{metric}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GateConfigError(f"[tool.harness.gate] {key!r} must be a number, got {value!r}")
        thresholds.append(Threshold(metric=metric, bound=bound, value=float(value)))  # type: ignore[arg-type]
    return thresholds


def evaluate_gate(report: Report, thresholds: list[Threshold]) -> GateResult:
    """Every threshold against every provider's run of the report."""
    checks: list[GateCheck] = []
    for run in report.runs:
        values = headline(run.metrics)
        for threshold in thresholds:
            actual = values.get(threshold.metric)
            if actual is None:
                passed = False
            elif threshold.bound == "min":
                passed = actual >= threshold.value
            else:
                passed = actual <= threshold.value
            checks.append(
                GateCheck(
                    provider=run.provider,
                    metric=threshold.metric,
                    bound=threshold.bound,
                    threshold=threshold.value,
                    actual=actual,
                    passed=passed,
                )
            )
    return GateResult(checks=checks)


def _harness_table(pyproject: Path) -> dict[str, object]:
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise GateConfigError(f"cannot read {pyproject}: {exc}") from None
    table = document.get("tool", {}).get("harness", {})
    return table if isinstance(table, dict) else {}
